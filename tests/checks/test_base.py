"""checks.base: the scaffolding every check shares (issue 38): settings arrive typed, what a
check raises is mapped one way (``failed``), results are assembled one way (``finish``)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import (
    Checking,
    CheckResult,
    CheckSettings,
    Finding,
    Outcome,
    Severity,
    failed,
    finish,
)
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import CheckError, SandboxError
from pydantic import Field

from tests.gitrepo import GitRepo

CRASH = "`model.py:build` at head raised ValueError: no\nTraceback:\n  model.py:3, in build"


def test_a_check_error_is_an_error_with_one_finding_naming_its_revision() -> None:
    result = failed("gradient", SandboxError(CRASH, kind="exception", revision="head"))

    assert (result.outcome, result.summary) == (Outcome.ERROR, CRASH.split("\n")[0])
    (finding,) = result.findings
    assert (finding.kind, finding.severity, finding.revision) == (
        "gradient-error",
        Severity.BLOCKING,
        "head",
    )
    assert finding.message == result.summary
    assert finding.details == "Traceback:\n  model.py:3, in build"


def test_a_message_is_mapped_the_same_way_and_names_no_revision_unless_told() -> None:
    result = failed("metrics", "`metrics` needs `checks.metrics.rules`")
    (finding,) = result.findings
    assert (result.outcome, finding.kind, finding.revision) == (
        Outcome.ERROR,
        "metrics-error",
        None,
    )


def test_anything_else_raised_is_an_error_naming_the_exception_type() -> None:
    result = failed("protected", KeyError("x"))
    assert (result.outcome, result.summary, result.findings) == (
        Outcome.ERROR,
        "KeyError: 'x'",
        (),
    )


NOTE = Finding("n", Severity.NOTE, "a note", file="b.py", line=1)
WARN = Finding("w", Severity.WARNING, "a warning", file="z.py", line=9)
BLOCK = Finding("b", Severity.BLOCKING, "blocks", file="a.py", line=2)


def test_finish_sorts_in_report_order_and_decides_the_outcome() -> None:
    result = finish("x", [NOTE, WARN, BLOCK], lambda found: f"{len(found)} findings")
    assert result.findings == (BLOCK, WARN, NOTE)
    assert (result.outcome, result.summary) == (Outcome.FAIL, "3 findings")
    assert finish("x", [NOTE, WARN], "said").outcome is Outcome.WARN
    assert finish("x", [], "said").outcome is Outcome.PASS
    assert finish("x", [BLOCK], "said", outcome=Outcome.WAITING).outcome is Outcome.WAITING


class OwnSettings(CheckSettings):
    depth: int = Field(default=3, strict=True)


class Deep(Checking[OwnSettings]):
    name: ClassVar[str] = "deep"
    title: ClassVar[str] = "Deep"
    settings_model: ClassVar[type[CheckSettings]] = OwnSettings

    def check(self, ctx: CheckContext, settings: OwnSettings) -> CheckResult:
        if settings.depth > 3:
            raise CheckError(
                "too deep at head",
            )
        return finish(self.name, [], f"depth {settings.depth}")


def _context(tmp_path: Path, settings: CheckSettings) -> CheckContext:
    sha = GitRepo(tmp_path).commit("one")
    return CheckContext(
        base_sha=sha, head_sha=sha, changes=(), source=GitRepository(tmp_path), settings=settings
    )


def test_settings_arrive_as_the_checks_own_type_and_a_check_error_is_its_error(
    tmp_path: Path,
) -> None:
    assert Deep().run(_context(tmp_path, CheckSettings())).summary == "depth 3"  # cast
    refused = Deep().run(_context(tmp_path, OwnSettings(depth=4)))
    assert (refused.outcome, refused.summary) == (Outcome.ERROR, "too deep at head")
    assert Deep.runs_without_user_code is False  # the protocol's defaults
