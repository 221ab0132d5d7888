"""The `perf` check: is the training step (or inference) slower at head than at base?

Both revisions are checked out once; ``rounds`` rounds each run one base child and one head
child (``child.measure``) in alternating order (base first in even rounds, head first in odd
ones), so drift on the machine falls on both sides. Each child's median step time is one
sample; ``compare`` judges the per-round ratios. A crash, hang or OOM at either revision is an
error naming the revision (``checks.model.run``), never a pass.
"""

from __future__ import annotations

import statistics
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, ClassVar

from gradgate.checks.base import (
    CheckContext,
    CheckResult,
    CheckSettings,
    Finding,
    Severity,
    error_result,
    outcome_for,
    settings_as,
)
from gradgate.checks.errors import ModelError, SandboxError
from gradgate.checks.model.device import choose_device, gpu_visible
from gradgate.checks.model.run import cuda_works, run_model_program
from gradgate.checks.model.settings import effective_model
from gradgate.checks.perf.compare import Timing, judge
from gradgate.checks.perf.settings import PerfSettings

PROGRAM = "perf.child:measure"
MEASURES = (("train", "training step"), ("infer", "inference"))


class PerfCheck:
    name: ClassVar[str] = "perf"
    title: ClassVar[str] = "Step time"
    settings_model: ClassVar[type[CheckSettings]] = PerfSettings
    runs_user_code: ClassVar[bool] = True
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        started = time.perf_counter()
        settings = settings_as(PerfSettings, ctx.settings)
        try:
            samples, facts = measure(ctx, settings)
        except (SandboxError, ModelError) as failed:
            return _error(str(failed), failed.revision, started)
        timings = tuple(
            judge(
                name,
                samples[("base", name)],
                samples[("head", name)],
                max_slowdown=settings.max_slowdown,
                confidence=settings.confidence,
            )
            for name, _ in MEASURES
        )
        return result_for(timings, facts, settings, started=started)


def measure(
    ctx: CheckContext, settings: PerfSettings
) -> tuple[dict[tuple[str, str], list[float]], dict[str, Any]]:
    """(revision, measure) -> one median step time per round; and the last child's facts."""
    spec = effective_model(ctx, check=PerfCheck.name)
    deadline = time.monotonic() + settings.timeout_s
    samples: dict[tuple[str, str], list[float]] = {}
    facts: dict[str, Any] = {}
    with ExitStack() as stack:
        roots = {
            "base": stack.enter_context(ctx.source.checkout(ctx.base_sha)),
            "head": stack.enter_context(ctx.source.checkout(ctx.head_sha)),
        }
        device = choose_device(
            settings.device,
            gpu_visible=gpu_visible(),
            cuda_works=lambda: cuda_works(ctx, settings, root=roots["base"]),
        )
        for round_ in range(settings.rounds):
            order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
            for revision in order:
                facts = _child(ctx, settings, spec, roots[revision], revision, device, deadline)
                for name, _ in MEASURES:
                    samples.setdefault((revision, name), []).append(
                        statistics.median(facts[f"{name}_s"])
                    )
    return samples, facts


def _child(
    ctx: CheckContext,
    settings: PerfSettings,
    spec: Any,
    root: Path,
    revision: str,
    device: str,
    deadline: float,
) -> dict[str, Any]:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        limit = f"`timeout_s` ({settings.timeout_s:g} s)"
        raise SandboxError(
            f"the check's {limit} ran out before all rounds could run",
            kind="timeout",
            revision=revision,
        )
    value = run_model_program(
        ctx,
        settings,
        spec=spec,
        root=root,
        revision=revision,
        program=PROGRAM,
        kwargs={"perf": {"warmup": settings.warmup, "steps": settings.steps}},
        device=device,
        seed=settings.seed,
        timeout_s=max(round(remaining, 1), 0.1),
    )
    assert isinstance(value, dict)
    return value


def result_for(
    timings: tuple[Timing, ...],
    facts: dict[str, Any],
    settings: PerfSettings,
    *,
    started: float | None = None,
) -> CheckResult:
    """Findings, summary and the report's rows for judged timings (pure but for the duration)."""
    words = dict(MEASURES)
    findings = []
    for t in timings:
        said = (
            f"{words[t.name]} time at head is {t.ratio:.2f}× base "
            f"({settings.confidence:.0%} interval {t.low:.2f}–{t.high:.2f}×)"
        )
        limit = f"`max_slowdown` ({settings.max_slowdown:g}×)"
        if t.verdict == "slower":
            message = f"{said}: the whole interval is above {limit}"
            findings.append(Finding("perf-slower", Severity.BLOCKING, message))
        elif t.verdict == "noisy":
            message = f"{said}: too noisy to decide against {limit}; more `rounds` narrow it"
            findings.append(Finding("perf-noisy", Severity.NOTE, message))
        else:
            findings.append(Finding("perf-ratio", Severity.NOTE, said))
    ordered = tuple(sorted(findings, key=lambda f: f.severity.rank))
    train = timings[0]
    return CheckResult(
        check=PerfCheck.name,
        outcome=outcome_for(ordered),
        summary=(
            f"training step {train.ratio:.2f}× base on {facts.get('device', '?')} "
            f"({settings.rounds} rounds)"
        ),
        findings=ordered,
        metrics={f"{t.name}_ratio": t.ratio for t in timings},
        duration_s=0.0 if started is None else time.perf_counter() - started,
        extra={
            "device": facts.get("device"),
            "clock": facts.get("clock"),
            "rows": [
                {
                    "measure": words[t.name],
                    "base_ms": t.base_s * 1e3,
                    "head_ms": t.head_s * 1e3,
                    "ratio": t.ratio,
                    "low": t.low,
                    "high": t.high,
                    "verdict": t.verdict,
                }
                for t in timings
            ],
        },
    )


def _error(message: str, revision: str | None, started: float) -> CheckResult:
    return error_result(
        PerfCheck.name, message, revision=revision, duration_s=time.perf_counter() - started
    )
