"""Run the `commands` check on a real git repository: base on main, the PR on a branch."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from gradgate.checks.base import CheckResult
from gradgate.checks.commands.check import CommandsCheck
from gradgate.checks.commands.settings import CommandsSettings

from tests.gitrepo import GitRepo


def pull_request(
    repo: GitRepo,
    base: Mapping[str, str],
    head: Mapping[str, str | None],
    settings: CommandsSettings | None = None,
) -> CheckResult:
    """Commit ``base`` on main, then ``head`` on a branch (None deletes); check the PR."""
    settings = settings or CommandsSettings(timeout_s=120.0, memory_mb=2048)
    with repo.pull_request_context(base, head, settings, python=sys.executable) as ctx:
        return CommandsCheck().run(ctx)
