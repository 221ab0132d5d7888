"""Pure rendering: a Report value -> markdown comment, terminal text, JSON, status descriptions.

Every sentence a user reads lives in bot.templates; this module only shapes values for them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gradgate.bot.plan.plan import Plan, PlannedCheck
from gradgate.bot.report.lines import DiffLines
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates import render_template
from gradgate.checks.base import CheckResult, Finding, Outcome, report_order

COMMENT_MARKER = "<!-- gradgate:report -->"
STATUS_LIMIT = 140  # GitHub truncates commit status descriptions beyond this

Format = Literal["markdown", "text", "json"]


@dataclass(frozen=True, slots=True)
class Report:
    verdict: Verdict
    results: tuple[CheckResult, ...] = ()
    plan: Plan | None = None
    base_sha: str | None = None  # the merge base the diff was taken from
    head_sha: str | None = None
    base_ref: str | None = None  # as the user named them
    head_ref: str | None = None
    config_hash: str | None = None
    config_source: str | None = None  # where the policy was read, in words for the footer
    error: str | None = None  # gradgate could not decide, outside any one check
    rerun: Literal["cli", "pr"] = "cli"
    repo_url: str | None = None  # e.g. https://github.com/o/r, for file:line links; None: no links
    # The diff's changed lines in the files the findings name (where GitHub takes inline review
    # comments); None: not known (an error before the diff, or JSON from an older gradgate).
    diff_lines: DiffLines | None = None

    def result_for(self, check: str) -> CheckResult | None:
        return next((r for r in self.results if r.check == check), None)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the checks table."""

    planned: PlannedCheck
    outcome: Outcome
    result: CheckResult | None


def rows(report: Report) -> list[Row]:
    if report.plan is None:
        return []
    out = []
    for planned in report.plan.checks:
        result = report.result_for(planned.name)
        if result is not None:
            outcome = result.outcome
        elif planned.run and not planned.available:
            outcome = Outcome.UNAVAILABLE
        elif planned.run:
            outcome = Outcome.ERROR  # planned but produced no result: never a silent pass
        else:
            outcome = Outcome.SKIPPED
        out.append(Row(planned=planned, outcome=outcome, result=result))
    return out


def findings(report: Report) -> list[tuple[CheckResult, Finding]]:
    pairs = [(r, f) for r in report.results for f in r.findings]
    return sorted(pairs, key=lambda pair: report_order(pair[1]))


def _context(report: Report) -> dict[str, Any]:
    return {
        "r": report,
        "rows": rows(report),
        "findings": findings(report),
        "marker": COMMENT_MARKER,
    }


def render(report: Report, fmt: Format) -> str:
    if fmt == "json":
        return json.dumps(as_json(report), indent=2) + "\n"
    template = "comment.md.j2" if fmt == "markdown" else "report.txt.j2"
    return render_template(template, **_context(report))


def render_plan(plan: Plan, fmt: Literal["text", "json"]) -> str:
    if fmt == "json":
        return json.dumps(plan.as_json(), indent=2) + "\n"
    return render_template("plan.txt.j2", plan=plan)


def status_descriptions(report: Report) -> Mapping[str, tuple[str, str]]:
    """Status context -> (state, description), one overall `gradgate` plus one per check."""
    lines = render_template("status.txt.j2", **_context(report)).splitlines()
    out: dict[str, tuple[str, str]] = {}
    for line in lines:
        context, state, description = line.split("\t", 2)
        if len(description) > STATUS_LIMIT:
            description = description[: STATUS_LIMIT - 1] + "…"
        out[context] = (state, description)
    return out


def _isolation(result: CheckResult | None) -> dict[str, Any] | None:
    """How the check's model code was isolated; None: it ran none."""
    isolation = None if result is None else result.isolation
    return None if isolation is None else dataclasses.asdict(isolation)


def as_json(report: Report) -> dict[str, Any]:
    return {
        "verdict": str(report.verdict),
        "error": report.error,
        "base_sha": report.base_sha,
        "head_sha": report.head_sha,
        "config_hash": report.config_hash,
        "config_source": report.config_source,
        "plan": report.plan.as_json() if report.plan else None,
        "checks": [
            {
                "name": row.planned.name,
                "outcome": str(row.outcome),
                "summary": row.result.summary if row.result else None,
                "duration_s": round(row.result.duration_s, 3) if row.result else None,
                "metrics": dict(row.result.metrics) if row.result else {},
                "sandbox": _isolation(row.result),
                "extra": dict(row.result.extra) if row.result else {},
                "findings": [
                    {
                        "kind": f.kind,
                        "severity": str(f.severity),
                        "file": f.file,
                        "line": f.line,
                        "message": f.message,
                        "details": f.details,
                        "details_lang": f.details_lang,
                        "revision": f.revision,
                        "head_file": f.head_file,
                        "head_line": f.head_line,
                    }
                    for f in (row.result.findings if row.result else ())
                ],
            }
            for row in rows(report)
        ],
        "diff_lines": report.diff_lines.as_json() if report.diff_lines is not None else None,
    }
