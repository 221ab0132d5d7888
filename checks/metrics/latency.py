"""`measure: latency`: gradgate times the model's inference at base and head itself.

The model comes from `model:` (or the check's own block). ``latency.rounds`` rounds each run a
base child and a head child (``perf.child:latency``), base first in even rounds and head first
in odd ones, so a machine that slows down for a while slows both; each revision's p50 and p95
are over all its timed calls, in milliseconds, as ``latency_ms_p50`` and ``latency_ms_p95``.
"""

from __future__ import annotations

import math
import time
from contextlib import ExitStack

from gradgate.checks.context import CheckContext
from gradgate.checks.errors import SandboxError
from gradgate.checks.metrics.settings import MetricsSettings
from gradgate.checks.model.device import device_for
from gradgate.checks.model.run import run_model_program
from gradgate.checks.model.settings import effective_model

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


def measure_latency(
    ctx: CheckContext, settings: MetricsSettings, *, deadline: float
) -> dict[str, dict[str, float]]:
    """revision -> its latency metrics; SandboxError or ModelError names the revision."""
    spec = effective_model(ctx, check="metrics")
    found: dict[str, list[float]] = {"base": [], "head": []}
    with ExitStack() as stack:
        roots = {
            "base": stack.enter_context(ctx.source.checkout(ctx.base_sha)),
            "head": stack.enter_context(ctx.source.checkout(ctx.head_sha)),
        }
        device = device_for(ctx, settings, settings.device, root=roots["base"])
        for round_ in range(settings.latency.rounds):
            order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
            for revision in order:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    limit = f"`timeout_s` ({settings.timeout_s:g} s)"
                    message = f"the check's {limit} ran out before {revision}'s latency was timed"
                    raise SandboxError(message, kind="timeout", revision=revision)
                value = run_model_program(
                    ctx,
                    settings,
                    spec=spec,
                    root=roots[revision],
                    revision=revision,
                    program=PROGRAM,
                    kwargs={
                        "latency": {
                            "runs": settings.latency.runs,
                            "warmup": settings.latency.warmup,
                        }
                    },
                    device=device,
                    seed=settings.seed,
                    timeout_s=max(round(remaining, 1), 0.1),
                )
                found[revision].extend(float(s) for s in value["latency_s"])
    return {revision: summarise(seconds) for revision, seconds in found.items()}
