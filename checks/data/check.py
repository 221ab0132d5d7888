"""The `data` check: the same input through the data path at base and at head, compared.

Each revision runs in its revision's sandboxed child (``child.probe``; the one the model checks
use: ``checks.model.session``), with every RNG seeded the same, base and head at once where
there are two cores; head takes the input in the form base's transform took where it can.
The parent names what changed (``compare``) and words it (``findings``). A crash, hang or
unusable factory at either revision is an error naming the revision, never a pass.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor, wait
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
from gradgate.checks.data.findings import findings_for
from gradgate.checks.data.problems import describe
from gradgate.checks.data.settings import DataSettings
from gradgate.checks.data.spec import DataSpec
from gradgate.checks.errors import CheckError, ModelError, SandboxError
from gradgate.checks.model.session import ModelSessions, model_sessions

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
        )

    def _error(self, message: str, revision: str, started: float) -> CheckResult:
        return error_result(
            self.name, message, revision=revision, duration_s=time.perf_counter() - started
        )


def measure(ctx: CheckContext, settings: DataSettings) -> tuple[dict[str, Any], dict[str, Any]]:
    """The child's JSON for base and head, within the check's one `timeout_s`: at the same time
    where the machine has a core for each. Head takes the input in the form base's transform
    took where it can: where the two took different forms, head runs again with base's first."""
    spec = ctx.data
    if spec is None:
        raise CheckError(
            "`data` needs your data transform, and .gradgate.yml has no `data:` block: add one "
            "with `entrypoint: path/to/file.py:function` (a function that returns the "
            "transform); config.example.yaml shows every option"
        )
    deadline = time.monotonic() + settings.timeout_s
    with model_sessions(ctx) as sessions:  # the revisions' children the model checks use

        def run(revision: str, forms: tuple[str, ...] = FORMS) -> dict[str, Any]:
            return _run(ctx, settings, spec, sessions, revision, forms, deadline)

        if _cores() < 2:
            base = run("base")
            head = run("head", _first(str(base.get("form"))))
            return base, head
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="data") as pool:
            base_run, head_run = pool.submit(run, "base"), pool.submit(run, "head")
            wait((base_run, head_run))
            base = base_run.result()  # base's error first, as it would run first
            head = head_run.result()
        form = str(base.get("form"))
        if head.get("form") != form and form in FORMS:
            head = run("head", _first(form))
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
    deadline: float,
) -> dict[str, Any]:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        limit = f"`timeout_s` ({settings.timeout_s:g} s)"
        message = f"the check's {limit} ran out before {revision} could run"
        raise SandboxError(message, kind="timeout", revision=revision)
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
        timeout_s=max(round(remaining, 1), 0.1),
    )
    if not isinstance(value, dict) or "runs" not in value:
        raise ModelError(f"{revision}'s data child sent no outputs", code="no-output")
    return value


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


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
