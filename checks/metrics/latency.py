"""`measure: latency`: gradgate times the model's inference at base and head itself.

The model comes from `model:` (or the check's own block). ``latency.rounds`` rounds each run a
base child and a head child (``perf.child:latency``), base first in even rounds and head first
in odd ones, so a machine that slows down for a while slows both; each revision's p50 and p95
are over all its timed calls, in milliseconds, as ``latency_ms_p50`` and ``latency_ms_p95``.
"""

from __future__ import annotations

import math

from gradgate.checks.metrics.settings import MetricsSettings
from gradgate.checks.model.run import run_model_program
from gradgate.checks.model.settings import effective_model
from gradgate.checks.model.turns import Revisions

PROGRAM = "perf.child:latency"


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest value with ``fraction`` of them at or below."""
    ordered = sorted(values)
    return ordered[max(math.ceil(fraction * len(ordered)) - 1, 0)]


def summarise(seconds: list[float]) -> dict[str, float]:
    """Timed calls (seconds) -> the latency metrics, in milliseconds."""
    return {
        "latency_ms_p50": percentile(seconds, 0.50) * 1e3,
        "latency_ms_p95": percentile(seconds, 0.95) * 1e3,
    }


def measure_latency(sides: Revisions, settings: MetricsSettings) -> dict[str, dict[str, float]]:
    """revision -> its latency metrics; SandboxError or ModelError names the revision."""
    spec = effective_model(sides.ctx, check="metrics")
    found: dict[str, list[float]] = {"base": [], "head": []}
    for round_ in range(settings.latency.rounds):
        order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
        for revision in order:
            value = run_model_program(
                sides.ctx,
                settings,
                spec=spec,
                root=sides.root(revision),
                revision=revision,
                program=PROGRAM,
                kwargs={
                    "latency": {"runs": settings.latency.runs, "warmup": settings.latency.warmup}
                },
                device=sides.device,
                seed=settings.seed,
                timeout_s=sides.left(revision, before=f"{revision}'s latency was timed"),
            )
            found[revision].extend(float(s) for s in value["latency_s"])
    return {revision: summarise(seconds) for revision, seconds in found.items()}
