"""Pure rendering: a Report value -> markdown comment, terminal text, JSON, status descriptions.

Every sentence a user reads lives in bot.templates; this module only shapes values for them,
and bounds them: the first findings in full (most severe first), the rest counted per kind; a
markdown body that fits GitHub's limit, shrunk step by step with the verdict and the first
failures kept on top. Values are escaped for their format by the templates' filters.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gradgate.bot.plan.plan import Plan, PlannedCheck, ReasonKind
from gradgate.bot.report.json_text import indented
from gradgate.bot.report.lines import DiffLines
from gradgate.bot.report.tidy import one_line
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates import render_template
from gradgate.checks.base import CheckResult, Finding, Outcome, Suppression, report_order
from gradgate.checks.model.plan.compare import ModelPlan
from gradgate.checks.model.plan.compare import as_json as plan_json

COMMENT_MARKER = "<!-- gradgate:report -->"
STATUS_LIMIT = 140  # GitHub truncates commit status descriptions beyond this
BODY_LIMIT = 65_536  # GitHub refuses a comment body longer than this


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a report is shown in full; the rest is counted."""

    findings: int  # findings shown, most severe first
    details: bool  # their details (diffs) folded under each
    zones: int  # touched zones listed
    paths: int  # paths listed per zone
    chars: int  # characters of any one value (message, path, line of a diff)
    lines: int = 60  # lines of any one finding's details


_ALL = 10**9
TEXT_LIMITS = Limits(findings=200, details=True, zones=50, paths=5, chars=2_000)
# Markdown: tried in order until the body fits the limit (BODY_LIMIT unless the caller splits
# bodies into several comments and allows more); the first shows everything.
MARKDOWN_LIMITS = (
    Limits(findings=_ALL, details=True, zones=_ALL, paths=10, chars=_ALL, lines=_ALL),
    Limits(findings=50, details=True, zones=20, paths=10, chars=1_000),
    Limits(findings=20, details=True, zones=10, paths=5, chars=500),
    Limits(findings=10, details=False, zones=5, paths=3, chars=300),
    Limits(findings=3, details=False, zones=3, paths=1, chars=200),
    Limits(findings=0, details=False, zones=0, paths=0, chars=120),
)

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
    # gradgate's docs/ folder as the door knows it (docs/checks/<check>.md is each check's page),
    # for the footer's links; None: no links.
    docs_url: str | None = None
    # The diff's changed lines in the files the findings name (where GitHub takes inline review
    # comments); None: not known (an error before the diff, or JSON from an older gradgate).
    diff_lines: DiffLines | None = None
    # The options of the command line that change the result (`--config FILE`, `--only X`...),
    # which the re-run hint repeats; only for rerun="cli".
    options: tuple[str, ...] = ()
    # What the change does to the model (checks.model.plan); None: no model check built it.
    model_plan: ModelPlan | None = None
    # The revisions whose plan facts came from the result cache: (revision, commit).
    plan_cached: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # Every message and summary one line, however a check wrote it (bot.report.tidy).
        object.__setattr__(self, "results", tuple(one_line(r) for r in self.results))

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


# Skipped for a reason that names no zone or path: such checks share one line of the report.
_ONE_LINE = (ReasonKind.NOT_IN_ZONE, ReasonKind.NOT_SELECTED, ReasonKind.NO_CHANGES)


@dataclass(frozen=True, slots=True)
class Skipped:
    """The checks skipped for one reason that names no zone or path, in the plan's order."""

    reason: ReasonKind
    names: tuple[str, ...]


def table(all_rows: list[Row]) -> tuple[list[Row], list[Skipped]]:
    """The rows a report lists one by one, and the skipped checks it lists on one line each
    reason ("skipped: gradient, checkpoint — no zone touched requires them")."""
    shown: list[Row] = []
    grouped: dict[ReasonKind, list[str]] = {}
    for row in all_rows:
        kind = row.planned.reasons[0].kind if row.planned.reasons else None
        if row.outcome is Outcome.SKIPPED and row.result is None and kind in _ONE_LINE:
            grouped.setdefault(kind, []).append(row.planned.name)
        else:
            shown.append(row)
    return shown, [Skipped(kind, tuple(names)) for kind, names in grouped.items()]


def nothing_protected(report: Report) -> bool:
    """A pass that protected nothing: the config has no zones, no file at head holds a marker
    comment (Plan.nothing_protected), and no check but `protected` ran."""
    plan = report.plan
    return (
        plan is not None
        and plan.nothing_protected
        and report.verdict is Verdict.SUCCESS
        and all(r.check == "protected" for r in report.results)
    )


def findings(report: Report) -> list[tuple[CheckResult, Finding]]:
    pairs = [(r, f) for r in report.results for f in r.findings]
    return sorted(pairs, key=lambda pair: report_order(pair[1]))


@dataclass(frozen=True, slots=True)
class Hidden:
    """Findings of one check, kind and severity beyond the ones shown."""

    check: str
    kind: str
    severity: str
    count: int


def hidden(pairs: list[tuple[CheckResult, Finding]]) -> list[Hidden]:
    counts = Counter((r.check, f.kind, f.severity.rank, str(f.severity)) for r, f in pairs)
    ordered = sorted(counts.items(), key=lambda item: (item[0][2], -item[1], item[0][:2]))
    return [Hidden(check, kind, severity, n) for (check, kind, _, severity), n in ordered]


def suppressions(report: Report) -> list[tuple[CheckResult, Suppression]]:
    """Every suppression the checks met (issue 34), those that did not count first (their
    findings stand), then by file and line: a report never silences a finding without a word."""
    pairs = [(r, s) for r in report.results for s in r.suppressions]
    return sorted(pairs, key=lambda p: (p[1].applied, p[1].file or "", p[1].line or 0))


def suppression_counts(report: Report) -> dict[str, int]:
    """How many suppressions applied, and how many the change added itself (not counted)."""
    listed = [s for _, s in suppressions(report)]
    applied = sum(s.applied for s in listed)
    return {"applied": applied, "not_counted": len(listed) - applied}


def documented(report: Report) -> list[str]:
    """The checks with a finding, each once, in the order their findings are listed: the
    footer links each one's page when the door knows where gradgate's docs are."""
    if not report.docs_url:
        return []
    return list(dict.fromkeys(r.check for r, _ in findings(report)))


def _context(report: Report, fmt: str, limits: Limits) -> dict[str, Any]:
    listed = findings(report)
    zones = list(report.plan.zones.items()) if report.plan else []
    all_rows = rows(report)
    shown, skipped = table(all_rows)
    unmatched = list(report.plan.unmatched.items()) if report.plan else []
    suppressed = suppressions(report)
    return {
        "r": report,
        "fmt": fmt,
        "rows": all_rows,  # every check: statuses need one each
        "shown": shown,  # the table's rows
        "skipped": skipped,  # the rest, a line per reason
        "nothing_protected": nothing_protected(report),
        "unmatched": unmatched[: max(limits.zones, 1)],
        "unmatched_hidden": max(len(unmatched) - max(limits.zones, 1), 0),
        "findings": listed[: limits.findings],
        "hidden": hidden(listed[limits.findings :]),
        "hidden_total": max(len(listed) - limits.findings, 0),
        "suppressions": suppressed[: limits.findings],
        "suppressions_hidden": max(len(suppressed) - limits.findings, 0),
        "zones": zones[: limits.zones],
        "zones_hidden": max(len(zones) - limits.zones, 0),
        "limits": limits,
        "marker": COMMENT_MARKER,
        "documented": documented(report),
    }


def render(report: Report, fmt: Format, *, limit: int | None = BODY_LIMIT) -> str:
    """``limit``: the most characters a markdown body may have (None: no bound, for a caller
    that splits it itself); the report shrinks until it fits, verdict and first failures kept."""
    if fmt == "json":
        return indented(as_json(report)) + "\n"
    if fmt == "text":
        return render_template("report.txt.j2", **_context(report, fmt, TEXT_LIMITS))
    for limits in MARKDOWN_LIMITS:
        body = render_template("comment.md.j2", **_context(report, fmt, limits))
        if limit is None or len(body) <= limit:
            break
    return body


def render_plan(plan: Plan, fmt: Literal["text", "json"]) -> str:
    if fmt == "json":
        return indented(plan.as_json()) + "\n"
    skipped = [
        Row(planned=c, outcome=Outcome.SKIPPED, result=None) for c in plan.checks if not c.run
    ]
    shown, grouped = table(skipped)
    return render_template("plan.txt.j2", plan=plan, fmt="text", shown=shown, skipped=grouped)


def status_descriptions(report: Report) -> Mapping[str, tuple[str, str]]:
    """Status context -> (state, description), one overall `gradgate` plus one per check."""
    lines = render_template("status.txt.j2", **_context(report, "text", TEXT_LIMITS)).splitlines()
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
                "cached": [
                    {"revision": c.revision, "commit": c.commit, "program": c.program}
                    for c in (row.result.cached if row.result else ())
                ],
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
                "suppressions": [
                    {
                        "rule": s.rule,
                        "origin": s.origin,
                        "applied": s.applied,
                        "file": s.file,
                        "line": s.line,
                        "reason": s.reason,
                    }
                    for s in (row.result.suppressions if row.result else ())
                ],
            }
            for row in rows(report)
        ],
        "suppressions": suppression_counts(report),
        "diff_lines": report.diff_lines.as_json() if report.diff_lines is not None else None,
        "model_plan": None if report.model_plan is None else plan_json(report.model_plan),
        "model_plan_cached": dict(report.plan_cached),
    }
