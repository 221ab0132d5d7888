"""Every re-run hint a report gives keeps the options of the run, `--python` included."""

from __future__ import annotations

import pytest
from gradgate.bot.report.render import Report, render
from gradgate.bot.report.verdict import Verdict
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity

OPTIONS = ("--only", "protected", "--python", "/envs/train/bin/python")


def _report(findings: int) -> Report:
    found = tuple(
        Finding("protected-line-changed", Severity.BLOCKING, f"line {i} changed", "a.py", i)
        for i in range(1, findings + 1)
    )
    result = CheckResult("protected", Outcome.FAIL, "changed", findings=found)
    return Report(verdict=Verdict.FAILURE, results=(result,), head_ref="pr", options=OPTIONS)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_rerun_hint_keeps_python(fmt: str) -> None:
    said = render(_report(1), fmt)  # type: ignore[arg-type]

    assert (
        "Re-run with `gradgate check --base main --head pr --only protected "
        "--python /envs/train/bin/python`." in said
    )


def test_the_hint_for_findings_not_shown_keeps_python_too() -> None:
    said = render(_report(250), "text")

    assert (
        "Run `gradgate check --base main --head pr --only protected --python "
        "/envs/train/bin/python --format json` for all of them." in said
    )
