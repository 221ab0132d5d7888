"""The `metrics` check: run the team's eval at base and head, hold the numbers to the rules.

Each revision runs ``child.collect`` in a fresh sandboxed child in its own checkout (base, then
head, within the one `timeout_s`); with `measure: latency`, ``latency`` adds gradgate's own
timing of the model's inference; ``compare`` judges the numbers (pure); the table of metric,
base, head, rule and verdict goes to the report as ``extra`` (bot/templates/check_metrics.*).
A crash at either revision, an eval that gives no mapping, and a ruled metric that is missing
or not a number are errors that name what and where, never a pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from gradgate.checks.base import (
    Checking,
    CheckResult,
    CheckSettings,
    Finding,
    Severity,
    failed,
    finish,
)
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import SandboxError
from gradgate.checks.metrics.compare import Comparison, Row, Unusable, compare
from gradgate.checks.metrics.latency import measure_latency
from gradgate.checks.metrics.settings import MetricsSettings
from gradgate.checks.model.turns import Revisions, revisions
from gradgate.checks.sandbox.for_check import run_user_code

PROGRAM = "metrics.child:collect"
_PROBLEMS = {
    "no-output": "the script wrote nothing to the file named in $GRADGATE_METRICS_FILE",
    "not-json": "the script's output is not JSON",
    "not-mapping": "the eval gave {type}, not a mapping of metric names to numbers",
}


class MetricsCheck(Checking[MetricsSettings]):
    name: ClassVar[str] = "metrics"
    title: ClassVar[str] = "Eval metrics"
    settings_model: ClassVar[type[CheckSettings]] = MetricsSettings
    runs_user_code: ClassVar[bool] = True

    def check(self, ctx: CheckContext, settings: MetricsSettings) -> CheckResult:
        if (settings.entrypoint is None and settings.measure is None) or not settings.rules:
            unmeasured = settings.entrypoint is None and settings.measure is None
            missing = "entrypoint" if unmeasured else "rules"
            alone = " (or `measure: latency`)" if missing == "entrypoint" else ""
            return failed(
                self.name,
                f"`metrics` needs `checks.metrics.{missing}` in .gradgate.yml{alone}; "
                "config.example.yaml shows both",
            )
        latency = settings.measure == "latency"
        # Fresh children (an eval is a script): the checkouts and the deadline, no children.
        device = settings.device if latency else "cpu"  # only the latency runs use one
        with revisions(ctx, settings, device=device, start=False) as sides:
            base, head = measure(sides, settings)
            if latency:
                timed = measure_latency(sides, settings)
                base, head = {**base, **timed["base"]}, {**head, **timed["head"]}
        return judge(compare(base, head, settings.rules))


def measure(sides: Revisions, settings: MetricsSettings) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each revision's metrics (name -> float or ``{"not_number": repr}``), none without an
    entrypoint; SandboxError names the revision whose eval crashed, hung, or gave no mapping
    of numbers."""
    if settings.entrypoint is None:
        return {}, {}
    found = [
        _run(sides.ctx, settings, root=sides.root(revision), revision=revision,
             timeout_s=sides.left(revision))
        for revision in ("base", "head")
    ]  # fmt: skip
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
        timeout_s=timeout_s,
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


def judge(comparison: Comparison) -> CheckResult:
    """The result for the compared numbers (pure)."""
    if comparison.unusable:
        first, *rest = comparison.unusable
        details = "\n".join(_unusable(u) for u in rest) or None
        return failed(
            MetricsCheck.name, _unusable(first), revision=first.revision, details=details,
            details_lang="text",
        )  # fmt: skip
    failed_rows = [row for row in comparison.rows if row.passed is False]
    findings = [_finding(row.metric, row.rule, row.failed_at_base) for row in failed_rows]
    failing = sum(1 for f in findings if f.severity is Severity.BLOCKING)
    ruled = sum(1 for row in comparison.rows if row.rule is not None)
    summary = (
        f"{failing} of {ruled} metric rules fail at head"
        if failing
        else f"all {ruled} metric rules hold at head"
    )
    return finish(
        MetricsCheck.name,
        findings,
        summary,
        metrics={f"{row.metric}_head": row.head for row in comparison.rows if row.head is not None},
        extra={"rows": [_row(row) for row in comparison.rows]},
        order=lambda f: f.severity.rank,
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
