"""Pure: per-round measures at base and head -> median ratio, bootstrap interval, verdict.

Rounds pair one base child with one head child run back to back, so a machine that slows down
for a while slows both sides of a round; the ratio per round cancels it. The interval comes
from resampling the rounds (a seeded bootstrap of the median ratio). It blocks only when the
whole interval is above the limit (``max_slowdown`` for time, ``max_memory_growth`` for peak
memory); an interval that straddles it is too noisy to decide.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

RESAMPLES = 2000
BOOTSTRAP_SEED = 23  # the same rounds always give the same interval

Verdict = Literal["beyond", "noisy", "ok"]


@dataclass(frozen=True, slots=True)
class Timing:
    """One measure (training step, inference or peak memory): its ratio, interval, verdict."""

    name: str  # "train", "infer" or "memory"
    base: float  # median over the rounds at base: seconds per step, or bytes
    head: float
    ratio: float  # median of the per-round head/base ratios
    low: float
    high: float
    verdict: Verdict


def judge(
    name: str,
    base: Sequence[float],
    head: Sequence[float],
    *,
    limit: float,
    confidence: float,
) -> Timing:
    """``base[i]`` and ``head[i]``: round i's value on each side (> 0); ``limit``: the ratio
    beyond which the measure blocks."""
    ratios = [h / b for b, h in zip(base, head, strict=True)]
    low, high = interval(ratios, confidence=confidence)
    verdict: Verdict = "ok"
    if low > limit:
        verdict = "beyond"
    elif high > limit:
        verdict = "noisy"
    return Timing(
        name,
        statistics.median(base),
        statistics.median(head),
        statistics.median(ratios),
        low,
        high,
        verdict,
    )


def interval(ratios: Sequence[float], *, confidence: float) -> tuple[float, float]:
    """The percentile bootstrap interval of the median of ``ratios``."""
    rng = random.Random(BOOTSTRAP_SEED)
    n = len(ratios)
    medians = sorted(statistics.median(rng.choices(ratios, k=n)) for _ in range(RESAMPLES))
    tail = (1 - confidence) / 2
    return medians[int(tail * (RESAMPLES - 1))], medians[int((1 - tail) * (RESAMPLES - 1))]
