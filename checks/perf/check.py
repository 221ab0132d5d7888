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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gradgate.checks.base import Checking, CheckResult, CheckSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.model.problems import describe
from gradgate.checks.model.run import run_entry_program
from gradgate.checks.model.settings import effective_model
from gradgate.checks.model.spec import ModelSpec
from gradgate.checks.model.turns import Revisions, revisions
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


class PerfCheck(Checking[PerfSettings]):
    name: ClassVar[str] = "perf"
    title: ClassVar[str] = "Step time"
    settings_model: ClassVar[type[CheckSettings]] = PerfSettings
    runs_user_code: ClassVar[bool] = True

    def check(self, ctx: CheckContext, settings: PerfSettings) -> CheckResult:
        found = measure(ctx, settings)
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
            tuple(timings), found.facts, settings, modules=modules, unmeasured=found.unmeasured
        )


def measure(ctx: CheckContext, settings: PerfSettings) -> Measured:
    """Every child's answer, round by round, base and head alternating, each a fresh child; the
    revisions runner gives the checkouts, the device and the one deadline."""
    spec = effective_model(ctx, check=PerfCheck.name)
    found = Measured()
    with revisions(ctx, settings, device=settings.device, start=False) as sides:
        for round_ in range(settings.rounds):
            order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
            for revision in order:
                _add(found, revision, _child(sides, settings, spec, revision))
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
    sides: Revisions, settings: PerfSettings, spec: ModelSpec, revision: str
) -> dict[str, Any]:
    perf = {
        "warmup": settings.warmup,
        "steps": settings.steps,
        "modules": settings.modules,
        "threads": settings.threads,
    }
    value = run_entry_program(
        sides.ctx,
        settings,
        entrypoint=spec.entrypoint,
        key="model",
        request=spec.as_request(),
        root=sides.root(revision),
        revision=revision,
        program=PROGRAM,
        kwargs={"perf": perf},
        device=sides.device,
        seed=settings.seed,
        timeout_s=sides.left(revision, before="all rounds could run"),
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
