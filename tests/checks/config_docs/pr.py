"""Run the `config-docs` check on a real git repository: base on main, the PR on a branch."""

from __future__ import annotations

from collections.abc import Mapping

from gradgate.checks.base import CheckResult, Finding, Severity
from gradgate.checks.config_docs.check import ConfigDocsCheck
from gradgate.checks.config_docs.settings import ConfigDocsSettings

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
    settings = settings or ConfigDocsSettings()
    with repo.pull_request_context(base, head, settings, moves=moves) as ctx:
        return ConfigDocsCheck().run(ctx)


def blocking(result: CheckResult) -> list[Finding]:
    return [f for f in result.findings if f.severity is Severity.BLOCKING]


def notes(result: CheckResult) -> list[Finding]:
    return [f for f in result.findings if f.severity is Severity.NOTE]


def only(findings: list[Finding], kind: str) -> Finding:
    assert [f.kind for f in findings] == [kind], findings
    return findings[0]
