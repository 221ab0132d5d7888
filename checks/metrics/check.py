"""The `metrics` check: run the team's eval at base and head, hold the numbers to the rules.

Each revision runs ``child.collect`` in a fresh sandboxed child in its own checkout (base, then
head, within the one `timeout_s`); with `measure: latency`, ``latency`` adds gradgate's own
timing of the model's inference; ``compare`` judges the numbers (pure); the table of metric,
base, head, rule and verdict goes to the report as ``extra`` (bot/templates/check_metrics.*).
A crash at either revision, an eval that gives no mapping, and a ruled metric that is missing
or not a number are errors that name what and where, never a pass.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

from gradgate.checks.base import (
    CheckResult,
    CheckSettings,
    Finding,
    Severity,
    error_result,
    outcome_for,
    settings_as,
)
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import ModelError, SandboxError
from gradgate.checks.metrics.compare import Comparison, Row, Unusable, compare
from gradgate.checks.metrics.latency import measure_latency
from gradgate.checks.metrics.settings import MetricsSettings
from gradgate.checks.sandbox.for_check import run_user_code

PROGRAM = "metrics.child:collect"
_PROBLEMS = {
    "no-output": "the script wrote nothing to the file named in $GRADGATE_METRICS_FILE",
    "not-json": "the script's output is not JSON",
    "not-mapping": "the eval gave {type}, not a mapping of metric names to numbers",
}


class MetricsCheck:
    name: ClassVar[str] = "metrics"
    title: ClassVar[str] = "Eval metrics"
    settings_model: ClassVar[type[CheckSettings]] = MetricsSettings
    runs_user_code: ClassVar[bool] = True
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        started = time.perf_counter()
        settings = settings_as(MetricsSettings, ctx.settings)
        if (settings.entrypoint is None and settings.measure is None) or not settings.rules:
            unmeasured = settings.entrypoint is None and settings.measure is None
            missing = "entrypoint" if unmeasured else "rules"
            alone = " (or `measure: latency`)" if missing == "entrypoint" else ""
            message = (
                f"`metrics` needs `checks.metrics.{missing}` in .gradgate.yml{alone}; "
                "config.example.yaml shows both"
            )
            return _error(message, None, started)
        deadline = time.monotonic() + settings.timeout_s
        try:
            base, head = measure(ctx, settings, deadline=deadline)
            if settings.measure == "latency":
                timed = measure_latency(ctx, settings, deadline=deadline)
                base, head = {**base, **timed["base"]}, {**head, **timed["head"]}
        except (SandboxError, ModelError) as failed:
            return _error(str(failed), failed.revision, started)
        return judge(compare(base, head, settings.rules), started=started)


def measure(
    ctx: CheckContext, settings: MetricsSettings, *, deadline: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each revision's metrics (name -> float or ``{"not_number": repr}``), none without an
    entrypoint; SandboxError names the revision whose eval crashed, hung, or gave no mapping
    of numbers."""
    if settings.entrypoint is None:
        return {}, {}
    found: list[dict[str, Any]] = []
    for revision, sha in (("base", ctx.base_sha), ("head", ctx.head_sha)):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            limit = f"`timeout_s` ({settings.timeout_s:g} s)"
            message = f"the check's {limit} ran out before {revision} could run"
            raise SandboxError(message, kind="timeout", revision=revision)
        with ctx.source.checkout(sha) as root:
            value = _run(ctx, settings, root=root, revision=revision, timeout_s=remaining)
        found.append(value)
    return found[0], found[1]


def _run(
    ctx: CheckContext, settings: MetricsSettings, *, root: Path, revision: str, timeout_s: float
) -> dict[str, Any]:
    entry = settings.entrypoint
    assert entry is not None
    script = None if ":" in entry else entry
    if script is not None and not (root / script).is_file():
        message = f"`{entry}` at {revision}: no such script in the revision's tree"
        raise SandboxError(message, kind="import", revision=revision)
    value = run_user_code(
        ctx,
        settings,
        target=None if script is not None else entry,
        root=root,
        revision=revision,
        program=PROGRAM,
        kwargs={"script": None if script is None else str(root / script)},
        timeout_s=max(round(timeout_s, 1), 0.1),  # one decimal reads well
        seed=settings.seed,
    )
    problem = value.get("problem") if isinstance(value, dict) else None
    if isinstance(problem, dict):
        words = _PROBLEMS.get(str(problem.get("code")), "the eval's answer cannot be used")
        detail = f" ({problem['detail']})" if problem.get("detail") else ""
        message = f"`{entry}` at {revision}: {words.format(**problem)}{detail}"
        raise SandboxError(message, kind="exception", revision=revision)
    assert isinstance(value, dict) and isinstance(value.get("metrics"), dict)
    return value["metrics"]  # type: ignore[no-any-return]


def judge(comparison: Comparison, *, started: float | None = None) -> CheckResult:
    """The result for the compared numbers (pure but for the duration)."""
    duration = 0.0 if started is None else time.perf_counter() - started
    if comparison.unusable:
        first, *rest = comparison.unusable
        details = "\n".join(_unusable(u) for u in rest) or None
        return _error(_unusable(first), first.revision, duration=duration, details=details)
    failed = [row for row in comparison.rows if row.passed is False]
    findings = tuple(_finding(row.metric, row.rule, row.failed_at_base) for row in failed)
    ordered = tuple(sorted(findings, key=lambda f: f.severity.rank))
    failing = sum(1 for f in findings if f.severity is Severity.BLOCKING)
    ruled = sum(1 for row in comparison.rows if row.rule is not None)
    summary = (
        f"{failing} of {ruled} metric rules fail at head"
        if failing
        else f"all {ruled} metric rules hold at head"
    )
    return CheckResult(
        check=MetricsCheck.name,
        outcome=outcome_for(ordered),
        summary=summary,
        findings=ordered,
        metrics={f"{row.metric}_head": row.head for row in comparison.rows if row.head is not None},
        duration_s=duration,
        extra={"rows": [_row(row) for row in comparison.rows]},
    )


def _finding(metric: str, rule: str | None, at_base: bool) -> Finding:
    if at_base:
        return Finding(
            kind="metric-rule-failed",
            severity=Severity.WARNING,
            message=f"`{metric}` fails its rule `{rule}` at head, as it already did at base",
            revision="head",
        )
    return Finding(
        kind="metric-rule-failed",
        severity=Severity.BLOCKING,
        message=f"`{metric}` fails its rule `{rule}` at head (it held at base)",
        revision="head",
    )


def _unusable(u: Unusable) -> str:
    if u.got is None:
        return f"the eval gave no metric `{u.metric}` at {u.revision}, which a rule needs"
    return f"metric `{u.metric}` at {u.revision} is not a finite number: {u.got}"


def _row(row: Row) -> dict[str, Any]:
    return {
        "metric": row.metric,
        "base": row.base,
        "head": row.head,
        "rule": row.rule,
        "passed": row.passed,
        "failed_at_base": row.failed_at_base,
    }


def _error(
    message: str,
    revision: str | None,
    started: float | None = None,
    *,
    duration: float | None = None,
    details: str | None = None,
) -> CheckResult:
    if duration is None:
        duration = 0.0 if started is None else time.perf_counter() - started
    return error_result(
        MetricsCheck.name, message, revision=revision, duration_s=duration, details=details,
        details_lang="text",
    )  # fmt: skip
