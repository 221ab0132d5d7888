"""A check's text in lines is shown as lines, never as one `\\n`-joined string (issue 19)."""

from __future__ import annotations

import json

from gradgate.bot.plan.plan import ConfigOrigin, Plan, PlannedCheck, Reason, ReasonKind
from gradgate.bot.report.load import report_from_json
from gradgate.bot.report.render import Report, render, status_descriptions
from gradgate.bot.report.verdict import Verdict
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity

CRASH = (
    "`model.py:build` at head raised RuntimeError: expected scalar type Long "
    "(at `model.py:18`, in `loss`)\n"
    "Where it happened (most recent call last):\n"
    "  model.py:18, in loss\n"
    "      return F.cross_entropy(targets, out)"
)
FIRST = CRASH.split("\n")[0]


def _report(message: str = CRASH, details: str | None = None, lang: str = "diff") -> Report:
    finding = Finding(
        "checkpoint-model-failed", Severity.BLOCKING, message, details=details,
        revision="head", details_lang=lang,
    )  # fmt: skip
    result = CheckResult("checkpoint", Outcome.ERROR, summary=message, findings=(finding,))
    planned = PlannedCheck(
        "checkpoint", "Checkpoint compatibility", True, (Reason(ReasonKind.ALWAYS),), True, True
    )
    plan = Plan((planned,), {}, 1, ConfigOrigin.BASE, config_changed=False)
    return Report(verdict=Verdict.ERROR, results=(result,), plan=plan)


def test_a_message_in_lines_is_its_first_line_with_the_rest_in_the_details() -> None:
    (finding,) = _report().results[0].findings

    assert finding.message == FIRST
    assert finding.details == CRASH.split("\n", 1)[1]
    assert finding.details_lang == "text"


def test_no_format_shows_a_newline_as_backslash_n() -> None:
    report = _report()

    for fmt in ("text", "markdown"):
        said = render(report, fmt)  # type: ignore[arg-type]
        assert "\\n" not in said  # a newline shown escaped, as `\n`
        assert "  model.py:18, in loss\n" in said
    (check,) = json.loads(render(report, "json"))["checks"]
    assert check["summary"] == check["findings"][0]["message"] == FIRST
    (state, description) = status_descriptions(report)["gradgate/checkpoint"]
    assert state == "error" and "\\n" not in description and "Where it" not in description


def test_the_lines_come_first_and_existing_details_follow() -> None:
    (finding,) = _report(details="-old\n+new").results[0].findings

    assert finding.details == CRASH.split("\n", 1)[1] + "\n\n-old\n+new"
    assert finding.details_lang == "diff"


def test_a_suggestion_stays_the_lines_replacement_alone() -> None:
    (finding,) = _report("Fix it.\nSee the table.", "x = 1", "suggestion").results[0].findings

    assert (finding.message, finding.details) == ("Fix it. See the table.", "x = 1")


def test_a_one_line_report_is_left_as_it_is_and_survives_json() -> None:
    report = _report("one line")

    assert report.results[0].findings[0].message == "one line"
    assert report_from_json(json.loads(render(report, "json"))) == report
