"""The check runs of a run (pure): an overall `gradgate` and one `gradgate/<check>` per check.

Where the token has `checks: write` (an App always; an Action when its workflow grants it),
gradgate reports check runs instead of statuses, under the same names, so a required check keeps
its name whichever way it is reported. A check's findings become annotations on their lines in
"Files changed"; only head lines can be marked there, so a finding about the base (`protected`:
the statement as it was) is marked on its statement's head line, where it has one. A run a
newer push superseded concludes what it left in progress `cancelled` (``superseded_check_runs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gradgate.bot.github.commit import Origin, conclusion, summary_note
from gradgate.bot.github.ports import Annotation, CheckRun
from gradgate.bot.github.statuses import final_statuses, pending_statuses
from gradgate.bot.plan.plan import Plan
from gradgate.bot.report.render import Report, render, rows
from gradgate.bot.templates import render_template
from gradgate.checks.base import Finding, Outcome, Severity

SUMMARY_LIMIT = 65_535  # GitHub's limit on a check run's output.summary
ANNOTATIONS_PER_REQUEST = 50  # GitHub's limit for one create or update of a check run
# Never "success" for an error: a check run's conclusion is what a required check reads. A
# check that waits (App mode: for /ok-to-test or a GPU worker) stays in progress (None).
_CONCLUSION: dict[Outcome, str | None] = {
    Outcome.PASS: "success",
    Outcome.WARN: "neutral",
    Outcome.FAIL: "failure",
    Outcome.ERROR: "failure",
    Outcome.UNAVAILABLE: "failure",
    Outcome.SKIPPED: "skipped",
    Outcome.WAITING: None,
}
# A run a newer push superseded: GitHub's own word for a run stopped before it finished, as
# Actions' `concurrency: cancel-in-progress` leaves it. Not `stale`: only GitHub sets that one.
SUPERSEDED = "cancelled"
_VERDICT = {"success": "success", "failure": "failure", "error": "failure", "pending": None}
_LEVEL = {Severity.BLOCKING: "failure", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def stamp(head_sha: str | None, base_sha: str | None, config_hash: str | None) -> str:
    """A check run's external id: what its result was computed against."""
    return f"gradgate:{head_sha or 'none'}:{base_sha or 'none'}:{config_hash or 'none'}"


def pending_check_runs(
    plan: Plan, *, head_sha: str, base_sha: str, config_hash: str | None, details_url: str | None
) -> list[CheckRun]:
    external = stamp(head_sha, base_sha, config_hash)
    return [
        CheckRun(
            name=s.context,
            conclusion=None if s.state == "pending" else "skipped",
            title=s.description,
            summary=s.description,
            details_url=details_url,
            external_id=external,
        )
        for s in pending_statuses(
            plan, base_sha=base_sha, config_hash=config_hash, target_url=details_url
        )
    ]


def final_check_runs(
    report: Report, *, details_url: str | None, origin: Origin | None = None
) -> list[CheckRun]:
    """The report's check runs as published on its head (``commit``): a pass without a base
    config is `neutral`, and the summaries say which pull request the verdict came from."""
    titles = {
        s.context: s.description
        for s in final_statuses(report, target_url=details_url, origin=origin)
    }
    external = stamp(report.head_sha, report.base_sha, report.config_hash)
    note = summary_note(report, origin)
    lead = f"{note}\n\n" if note else ""
    whole = lead + render(report, "markdown", limit=None)
    if len(whole) > SUMMARY_LIMIT:
        cut = render_template("check_run_cut.md.j2").strip()
        # The report shrunk to fit (the first findings in full, the rest counted), so no fence
        # or fold is cut open; the slice only guards the limit.
        room = SUMMARY_LIMIT - len(cut) - len(lead) - 2
        whole = lead + render(report, "markdown", limit=room)[:room] + "\n\n" + cut
    runs = [
        CheckRun(
            name="gradgate",
            conclusion=conclusion(report, _VERDICT[str(report.verdict)]),
            title=titles["gradgate"],
            summary=whole,
            details_url=details_url,
            external_id=external,
        )
    ]
    for row in rows(report):
        name = f"gradgate/{row.planned.name}"
        findings = row.result.findings if row.result else ()
        summary = render_template("check_run_summary.md.j2", r=report, row=row, count=len(findings))
        runs.append(
            CheckRun(
                name=name,
                conclusion=conclusion(report, _CONCLUSION[row.outcome]),
                title=titles[name],
                summary=lead + summary,
                annotations=tuple(a for f in findings if (a := annotation(f)) is not None),
                details_url=details_url,
                external_id=external,
            )
        )
    return runs


def superseded_check_runs(
    names: Sequence[str], *, head_sha: str, newer_head: str, details_url: str | None
) -> list[CheckRun]:
    """The check runs a superseded run left in progress, concluded `cancelled`, saying why."""
    title = render_template("github_superseded.txt.j2", newer_head=newer_head).strip()
    summary = render_template(
        "check_run_superseded.md.j2", head_sha=head_sha, newer_head=newer_head
    ).strip()
    return [
        CheckRun(
            name=name, conclusion=SUPERSEDED, title=title, summary=summary, details_url=details_url
        )
        for name in names
    ]


def replaced_check_runs(names: Sequence[str]) -> list[CheckRun]:
    """Duplicates of a check run left in progress on the same commit (a create whose answer was
    lost, then retried), concluded `cancelled`: the first of each name carries the result."""
    title = render_template("check_run_replaced.txt.j2").strip()
    return [CheckRun(name=n, conclusion=SUPERSEDED, title=title, summary=title) for n in names]


def annotation(finding: Finding) -> Annotation | None:
    path, line = finding.file, finding.line
    if finding.revision == "base":  # base line numbers: the statement's head line, if it has one
        path, line = finding.head_file, finding.head_line
    if path is None or line is None:
        return None
    level = _LEVEL[finding.severity]
    return Annotation(
        path=path,
        start_line=line,
        end_line=line,
        level=level,  # type: ignore[arg-type]
        message=finding.message,
        title=finding.kind,
    )


# -- the REST request bodies (client.py sends them) ---------------------------------------------


def batches(run: CheckRun) -> list[tuple[Annotation, ...]]:
    """The annotations in GitHub's batches: the first with the create, the rest appended."""
    a = run.annotations
    return [a[i : i + ANNOTATIONS_PER_REQUEST] for i in range(0, len(a), ANNOTATIONS_PER_REQUEST)]


def request_state(run: CheckRun) -> dict[str, Any]:
    state: dict[str, Any] = {"status": "in_progress"}
    if run.conclusion is not None:
        state = {"status": "completed", "conclusion": run.conclusion}
    if run.details_url:
        state["details_url"] = run.details_url
    if run.external_id:
        state["external_id"] = run.external_id
    return state


def request_output(run: CheckRun, annotations: tuple[Annotation, ...]) -> dict[str, Any]:
    output: dict[str, Any] = {"title": run.title, "summary": run.summary}
    if annotations:
        output["annotations"] = [
            {
                "path": a.path,
                "start_line": a.start_line,
                "end_line": a.end_line,
                "annotation_level": a.level,
                "message": a.message,
                **({"title": a.title} if a.title else {}),
            }
            for a in annotations
        ]
    return output
