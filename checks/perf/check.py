"""The `perf` check: is the training step (or inference) slower, or its peak memory larger, at
head than at base?

Both revisions are checked out once; ``rounds`` rounds each run one base child and one head
child (``child.measure``) in alternating order (base first in even rounds, head first in odd
ones), so drift on the machine falls on both sides. Each child's median step time, its peak
memory and each top-level module's forward time are one sample; ``compare`` and ``modules``
judge them, ``report`` words the result. A crash, hang or OOM at either revision is an error
naming the revision (``checks.model.run``), never a pass.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from gradgate.checks.base import CheckResult, CheckSettings, error_result, settings_as
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import ModelError, SandboxError
from gradgate.checks.model.device import device_for
from gradgate.checks.model.problems import describe
from gradgate.checks.model.run import run_entry_program
from gradgate.checks.model.settings import effective_model
from gradgate.checks.model.spec import ModelSpec
from gradgate.checks.perf.compare import judge
from gradgate.checks.perf.modules import slowed
from gradgate.checks.perf.report import TIMED, result_for
from gradgate.checks.perf.settings import PerfSettings

PROGRAM = "perf.child:measure"


@dataclass
class Measured:
    """Per revision: each measure's value per round, each module's time per round, the batch."""

    samples: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    modules: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)  # each side's last child
    unmeasured: dict[str, str] = field(default_factory=dict)  # revision -> why no peak memory


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
            found = measure(ctx, settings)
        except (SandboxError, ModelError) as failed:
            return error_result(
                self.name, str(failed), revision=failed.revision,
                duration_s=time.perf_counter() - started,
            )  # fmt: skip
        timings = [
            judge(
                name,
                found.samples[("base", name)],
                found.samples[("head", name)],
                limit=settings.max_slowdown,
                confidence=settings.confidence,
            )
            for name in TIMED
        ]
        base_peak, head_peak = found.samples[("base", "memory")], found.samples[("head", "memory")]
        if min(base_peak) > 0 and min(head_peak) > 0:
            timings.append(
                judge(
                    "memory",
                    base_peak,
                    head_peak,
                    limit=settings.max_memory_growth,
                    confidence=settings.confidence,
                )
            )
        modules = slowed(
            found.modules.get("base", {}),
            found.modules.get("head", {}),
            max_slowdown=settings.max_slowdown,
        )
        return result_for(
            tuple(timings), found.facts, settings, modules=modules,
            unmeasured=found.unmeasured, started=started,
        )  # fmt: skip


def measure(ctx: CheckContext, settings: PerfSettings) -> Measured:
    """Every child's answer, round by round, base and head alternating."""
    spec = effective_model(ctx, check=PerfCheck.name)
    deadline = time.monotonic() + settings.timeout_s
    found = Measured()
    with ExitStack() as stack:
        roots = {
            "base": stack.enter_context(ctx.source.checkout(ctx.base_sha)),
            "head": stack.enter_context(ctx.source.checkout(ctx.head_sha)),
        }
        device = device_for(ctx, settings, settings.device, root=roots["base"])
        for round_ in range(settings.rounds):
            order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
            for revision in order:
                facts = _child(ctx, settings, spec, roots[revision], revision, device, deadline)
                _add(found, revision, facts)
    return found


def _add(found: Measured, revision: str, facts: Mapping[str, Any]) -> None:
    found.facts[revision] = dict(facts)
    for name in TIMED:
        found.samples.setdefault((revision, name), []).append(statistics.median(facts[f"{name}_s"]))
    found.samples.setdefault((revision, "memory"), []).append(float(facts["peak_bytes"] or 0))
    if facts.get("memory_problem"):
        found.unmeasured.setdefault(revision, str(facts["memory_problem"]))
    modules = found.modules.setdefault(revision, {})
    for module, seconds in (facts.get("modules") or {}).items():
        modules.setdefault(str(module), []).append(float(seconds))


def _child(
    ctx: CheckContext,
    settings: PerfSettings,
    spec: ModelSpec,
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
    perf = {
        "warmup": settings.warmup,
        "steps": settings.steps,
        "modules": settings.modules,
        "threads": settings.threads,
    }
    value = run_entry_program(
        ctx,
        settings,
        entrypoint=spec.entrypoint,
        key="model",
        request=spec.as_request(),
        root=root,
        revision=revision,
        program=PROGRAM,
        kwargs={"perf": perf},
        device=device,
        seed=settings.seed,
        timeout_s=max(round(remaining, 1), 0.1),
        describe_problem=_describe,
    )
    assert isinstance(value, dict)
    return value


def _describe(problem: Mapping[str, Any], where: str) -> str:
    if problem.get("code") == "bad-step":
        return (
            f"{where} returned {problem.get('got')} as `step`; it must be a callable, called "
            "like the model with the model first: `step(model, *inputs)`."
        )
    return describe(problem, where=where)
