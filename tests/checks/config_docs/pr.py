"""Run the `config-docs` check on a real git repository: base on main, the PR on a branch."""

from __future__ import annotations

from collections.abc import Mapping

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import CheckResult, Finding, Severity
from gradgate.checks.config_docs.check import ConfigDocsCheck
from gradgate.checks.config_docs.settings import ConfigDocsSettings
from gradgate.checks.context import CheckContext

from tests.gitrepo import GitRepo


def pull_request(
    repo: GitRepo,
    base: Mapping[str, str | bytes],
    head: Mapping[str, str | bytes | None],
    *,
    moves: tuple[tuple[str, str], ...] = (),
    settings: ConfigDocsSettings | None = None,
) -> CheckResult:
    """Commit ``base`` on main, then on a branch apply ``moves`` and ``head`` (None deletes)."""
    base_sha, head_sha = repo.pull_request(base, head, moves=moves)
    with GitRepository(repo.root) as git:
        ctx = CheckContext(
            base_sha=base_sha,
            head_sha=head_sha,
            changes=git.changes(base_sha, head_sha),
            source=git,
            settings=settings or ConfigDocsSettings(),
        )
        return ConfigDocsCheck().run(ctx)


def blocking(result: CheckResult) -> list[Finding]:
    return [f for f in result.findings if f.severity is Severity.BLOCKING]


def notes(result: CheckResult) -> list[Finding]:
    return [f for f in result.findings if f.severity is Severity.NOTE]


def only(findings: list[Finding], kind: str) -> Finding:
    assert [f.kind for f in findings] == [kind], findings
    return findings[0]
