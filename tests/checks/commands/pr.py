"""Run the `commands` check on a real git repository: base on main, the PR on a branch."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import CheckResult
from gradgate.checks.commands.check import CommandsCheck
from gradgate.checks.commands.settings import CommandsSettings
from gradgate.checks.context import CheckContext

from tests.gitrepo import GitRepo


def pull_request(
    repo: GitRepo,
    base: Mapping[str, str],
    head: Mapping[str, str | None],
    settings: CommandsSettings | None = None,
) -> CheckResult:
    """Commit ``base`` on main, then ``head`` on a branch (None deletes); check the PR."""
    for path, text in base.items():
        repo.write(path, text)
    base_sha = repo.commit("base")
    repo.branch("pr")
    for path, content in head.items():
        if content is None:
            repo.remove(path)
        else:
            repo.write(path, content)
    head_sha = repo.commit("pr")
    with GitRepository(repo.root) as git:
        ctx = CheckContext(
            base_sha=base_sha,
            head_sha=head_sha,
            changes=git.changes(base_sha, head_sha),
            source=git,
            settings=settings or CommandsSettings(timeout_s=120.0, memory_mb=2048),
            python=sys.executable,
        )
        return CommandsCheck().run(ctx)
