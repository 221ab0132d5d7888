"""The `data` check: the same input through the data path at base and at head, compared.

Each revision runs in its revision's sandboxed child (``child.probe``; the one the model checks
use: ``checks.model.session``), with every RNG seeded the same, both children started at once
and the runs one after the other (``checks.model.turns``); head takes the input in the form
base's transform took where it can.
The parent names what changed (``compare``) and words it (``findings``). A crash, hang or
unusable factory at either revision is an error naming the revision, never a pass.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from gradgate.checks.base import (
    CheckContext,
    CheckResult,
    CheckSettings,
    Finding,
    Severity,
    error_result,
    outcome_for,
    report_order,
    settings_as,
)
from gradgate.checks.data.compare import Comparison, compare
from gradgate.checks.data.findings import accepted, findings_for
from gradgate.checks.data.problems import describe
from gradgate.checks.data.settings import DataSettings
from gradgate.checks.data.spec import DataSpec
from gradgate.checks.errors import CheckError, ModelError
from gradgate.checks.model.session import ModelSessions, model_sessions
from gradgate.checks.model.turns import Deadline

PROGRAM = "data.child.probe:probe"
FORMS = ("numpy", "pil", "tensor")


class DataCheck:
    name: ClassVar[str] = "data"
    title: ClassVar[str] = "Data pipeline"
    settings_model: ClassVar[type[CheckSettings]] = DataSettings
    runs_user_code: ClassVar[bool] = True
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        started = time.perf_counter()
        settings = settings_as(DataSettings, ctx.settings)
        try:
            base, head = measure(ctx, settings)
        except CheckError as failed:  # SandboxError, ModelError: naming the revision
            return self._error(str(failed), getattr(failed, "revision", None) or "", started)
        result = self.judge(base, head, settings)
        return CheckResult(
            check=result.check,
            outcome=result.outcome,
            summary=result.summary,
            findings=result.findings,
            duration_s=time.perf_counter() - started,
            extra=result.extra,
            suppressions=result.suppressions,
        )

    def judge(
        self, base: dict[str, Any], head: dict[str, Any], settings: DataSettings
    ) -> CheckResult:
        """The result for two measured revisions (pure)."""
        comparison = compare(base, head, tolerance=settings.tolerance)
        findings = tuple(sorted(findings_for(comparison, allow=settings.allow), key=report_order))
        return CheckResult(
            check=self.name,
            outcome=outcome_for(findings),
            summary=_summary(comparison, findings),
            findings=findings,
            extra={"input": comparison.head_form, "outputs": comparison.outputs},
            suppressions=accepted(comparison, allow=settings.allow),
        )

    def _error(self, message: str, revision: str, started: float) -> CheckResult:
        return error_result(
            self.name, message, revision=revision, duration_s=time.perf_counter() - started
        )


def measure(ctx: CheckContext, settings: DataSettings) -> tuple[dict[str, Any], dict[str, Any]]:
    """The child's JSON for base, then head, within the check's one `timeout_s`. Head takes the
    input in the form base's transform took where it can: it tries base's form first."""
    spec = ctx.data
    if spec is None:
        raise CheckError(
            "`data` needs your data transform, and .gradgate.yml has no `data:` block: add one "
            "with `entrypoint: path/to/file.py:function` (a function that returns the "
            "transform); config.example.yaml shows every option"
        )
    deadline = Deadline(settings.timeout_s)
    with model_sessions(ctx) as sessions:  # the revisions' children the model checks use
        sessions.start(ctx, settings, entrypoint=spec.entrypoint, key="data")
        base = _run(ctx, settings, spec, sessions, "base", FORMS, deadline)
        head = _run(ctx, settings, spec, sessions, "head", _first(str(base.get("form"))), deadline)
        return base, head


def _first(form: str) -> tuple[str, ...]:
    return (form, *(f for f in FORMS if f != form))


def _run(
    ctx: CheckContext,
    settings: DataSettings,
    spec: DataSpec,
    sessions: ModelSessions,
    revision: str,
    forms: tuple[str, ...],
    deadline: Deadline,
) -> dict[str, Any]:
    value = sessions.run_entry(
        ctx,
        settings,
        entrypoint=spec.entrypoint,
        key="data",
        request={**spec.as_request(), "forms": list(forms), "tolerance": settings.tolerance},
        revision=revision,
        program=PROGRAM,
        describe_problem=describe,
        seed=settings.seed,
        timeout_s=deadline.left(revision),
    )
    if not isinstance(value, dict) or "runs" not in value:
        raise ModelError(f"{revision}'s data child sent no outputs", code="no-output")
    return value


def _summary(c: Comparison, findings: tuple[Finding, ...]) -> str:
    blocking = sum(1 for f in findings if f.severity is Severity.BLOCKING)
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    scope = f"{c.outputs} output{'s' if c.outputs != 1 else ''}, input: {c.head_form}"
    if blocking:
        return (
            f"{blocking} output{'s' if blocking != 1 else ''} changed for the same input ({scope})"
        )
    warned = f"; {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""
    return f"the same input comes out the same ({scope}){warned}"
