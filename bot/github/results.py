"""A fan-out workflow's results -> one report (pure).

The plan job writes a plan record (``plan_record``: the PR, the SHAs, the config hash and the
plan); each check job writes its check's JSON report (`gradgate check --only NAME --format
json`). ``merge`` joins them for the head the publishing side trusts. Results for another head
are not used; a check the plan runs without a result (its job failed, was cancelled, or its
result was for another head) is an error result, and one this version cannot run is
`unavailable`: neither ever passes.

Everything in a record is checked by its format before it is used (bot.report.formats): it may
have come from a fork's run. A plan that does not list every check gradgate has (`protected`
among them) is no plan: an error, never a pass (issue 17).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from gradgate.bot.config.model import ReviewMode
from gradgate.bot.plan.plan import Plan
from gradgate.bot.report import formats
from gradgate.bot.report.lines import DiffLines, union
from gradgate.bot.report.load import plan_from_json, report_from_json
from gradgate.bot.report.render import Report
from gradgate.bot.report.verdict import verdict_for
from gradgate.bot.templates import render_template
from gradgate.checks import REGISTRY
from gradgate.checks.base import CheckResult, Outcome, not_available

PLAN_FILE = "plan.json"
CHECK_FILE = "check-{name}.json"


def plan_record(
    *,
    pr: int,
    head_sha: str,
    base_sha: str,
    config_hash: str | None,
    config_source: str | None,
    plan: Plan | None,
    error: str | None = None,
    review: ReviewMode = "off",
    waiting: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``waiting``: the checks that wait instead of running (a fork's code, not yet approved),
    each with why, as its status says it."""
    return {
        "review": review,  # `report.review` of the base's config, for the publishing job
        "pr": pr,
        "head_sha": head_sha,
        "base_sha": base_sha,
        "config_hash": config_hash,
        "config_source": config_source,
        "error": error,
        "plan": plan.as_json() if plan is not None else None,
        "waiting": dict(waiting or {}),
    }


def record_pr(record: Mapping[str, Any]) -> int:
    """The PR a plan record names (from an untrusted run: the caller verifies it)."""
    try:
        return formats.positive_int(record.get("pr"), "pr")
    except ValueError as exc:
        raise ValueError(f"the plan record names no pull request: {exc}") from None


def record_review(record: Mapping[str, Any]) -> ReviewMode:
    """The review mode a plan record names ("off" in a record from before reviews)."""
    review = record.get("review", "off")
    if review not in get_args(ReviewMode):
        raise ValueError(f"the plan record names no review mode gradgate knows: {review!r}")
    return review  # type: ignore[no-any-return]


def merge(record: Mapping[str, Any], checks: Sequence[Any], *, head_sha: str) -> Report:
    """One report for ``head_sha`` from a plan record and the check jobs' JSON reports.

    Raises ValueError when the plan record itself is malformed or for another head.
    """
    if formats.sha(record.get("head_sha"), "head_sha") != head_sha:
        raise ValueError(f"the plan is for {record.get('head_sha')}, not for {head_sha}")
    config = record.get("config_hash")
    base = dict(
        base_sha=formats.sha(record.get("base_sha"), "base_sha"),
        head_sha=head_sha,
        config_hash=None if config is None else formats.config_hash(config, "config_hash"),
        config_source=_text(record, "config_source"),
    )
    error = _text(record, "error")
    if error is not None or record.get("plan") is None:
        message = error or "the plan job wrote no plan"
        return Report(verdict=verdict_for((), error=message), error=message, **base)  # type: ignore[arg-type]
    plan = plan_from_json(record["plan"])
    missing = [name for name in REGISTRY if name not in {c.name for c in plan.checks}]
    if missing:  # a plan that leaves a check out decides nothing about it
        raise ValueError(f"the plan does not list the check(s) {', '.join(missing)}")
    found: dict[str, CheckResult] = {}
    lines: list[DiffLines | None] = []
    model_plans = []  # each job that ran a model check made one: the first is kept
    for data in checks:
        try:
            report = report_from_json(data)
        except ValueError:
            continue  # unreadable: the check counts as having no result
        if report.head_sha != head_sha or report.base_sha != base["base_sha"]:
            continue
        lines.append(report.diff_lines)
        if report.model_plan is not None:
            model_plans.append(report.model_plan)
        for result in report.results:
            if result.outcome is not Outcome.SKIPPED:
                found.setdefault(result.check, result)
    waiting = _waiting(record)
    results = []
    for planned in plan.to_run:
        if not planned.available:
            results.append(not_available(planned.name))
        elif planned.name in waiting:
            summary = waiting[planned.name]
            results.append(
                CheckResult(check=planned.name, outcome=Outcome.WAITING, summary=summary)
            )
        else:
            results.append(found.get(planned.name) or _missing(planned.name))
    return Report(
        verdict=verdict_for(results),
        results=tuple(results),
        plan=plan,
        diff_lines=union(lines),
        model_plan=model_plans[0] if model_plans else None,
        **base,  # type: ignore[arg-type]
    )


def _missing(name: str) -> CheckResult:
    summary = render_template("github_missing.txt.j2", check=name).strip()
    return CheckResult(check=name, outcome=Outcome.ERROR, summary=summary)


def _waiting(record: Mapping[str, Any]) -> dict[str, str]:
    waiting = record.get("waiting") or {}
    if not isinstance(waiting, dict) or not all(
        name in REGISTRY and isinstance(why, str) for name, why in waiting.items()
    ):
        raise ValueError("`waiting` in the plan record is not checks and their reasons")
    return waiting


def _text(record: Mapping[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"`{key}` in the plan record is not text: {value!r}")
    return value
