"""The perf verdict from per-round step times: block only when the whole interval is beyond."""

from __future__ import annotations

import pytest
from gradgate.checks.perf.child import clock_for
from gradgate.checks.perf.child.memory import meter_for, tensor_peak
from gradgate.checks.perf.compare import interval, judge


@pytest.mark.parametrize(
    ("base", "head", "verdict"),
    [
        ([1.0, 1.0, 1.0, 1.0, 1.0], [4.0, 3.8, 4.1, 3.9, 4.2], "beyond"),
        ([1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.02, 0.98, 1.01, 0.99], "ok"),
        ([1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.6, 0.9, 1.5, 1.0], "noisy"),
        ([1.0, 1.0, 1.0, 1.0, 1.0], [1.2, 1.2, 1.2, 1.2, 1.2], "beyond"),
        ([1.0, 1.0, 1.0, 1.0, 1.0], [1.1, 1.1, 1.1, 1.1, 1.1], "ok"),
    ],
)
def test_the_verdict_follows_the_interval_against_max_slowdown(
    base: list[float], head: list[float], verdict: str
) -> None:
    timing = judge("train", base, head, limit=1.15, confidence=0.95)

    assert timing.verdict == verdict
    assert timing.low <= timing.ratio <= timing.high


def test_a_machine_that_slows_down_for_a_while_cancels_out_round_by_round() -> None:
    base = [1.0, 3.0, 1.0, 3.0, 1.0]  # a busy neighbour in rounds 1 and 3, on both sides
    head = [1.0, 3.0, 1.0, 3.0, 1.0]

    timing = judge("train", base, head, limit=1.15, confidence=0.95)

    assert (timing.ratio, timing.low, timing.high, timing.verdict) == (1.0, 1.0, 1.0, "ok")


def test_the_interval_is_the_same_for_the_same_rounds() -> None:
    ratios = [1.0, 1.3, 0.9, 1.1, 1.2]

    assert interval(ratios, confidence=0.9) == interval(ratios, confidence=0.9)
    low, high = interval(ratios, confidence=0.9)
    assert min(ratios) <= low < high <= max(ratios)


@pytest.mark.parametrize(("device", "clock"), [("cpu", "perf_counter"), ("cuda", "cuda-events")])
def test_cuda_steps_are_timed_with_events_and_cpu_steps_with_perf_counter(
    device: str, clock: str
) -> None:
    assert clock_for(device) == clock


@pytest.mark.parametrize(
    ("device", "meter"), [("cpu", "tensor-peak"), ("cuda", "cuda-max-allocated")]
)
def test_cuda_peak_memory_comes_from_its_allocator_and_cpu_peak_from_counted_tensors(
    device: str, meter: str
) -> None:
    assert meter_for(device) == meter


def test_the_cpu_meter_counts_the_tensors_a_step_keeps_alive_at_once() -> None:
    import torch

    weights = torch.zeros(1000)  # 4,000 bytes alive before the step

    def step() -> None:
        first = torch.ones(250_000)  # 1 MB
        second = first * 2  # another 1 MB while the first is alive
        del first, second
        torch.ones(250_000)  # 1 MB again, after both were freed

    assert tensor_peak([step], [weights]) == 4_000 + 2_000_000


def test_the_ratio_is_head_over_base_round_by_round() -> None:
    timing = judge("train", [2.0, 4.0, 8.0], [3.0, 6.0, 12.0], limit=1.25, confidence=0.95)

    assert (timing.base, timing.head, timing.ratio) == (4.0, 6.0, 1.5)
    assert (timing.low, timing.high, timing.verdict) == (1.5, 1.5, "beyond")
    faster = judge("train", [2.0, 4.0, 8.0], [1.0, 2.0, 4.0], limit=1.25, confidence=0.95)
    assert (faster.ratio, faster.verdict) == (0.5, "ok")


def test_a_slowdown_of_exactly_the_limit_is_within_it() -> None:
    timing = judge("memory", [4.0] * 5, [5.0] * 5, limit=1.25, confidence=0.95)

    assert (timing.low, timing.high, timing.verdict) == (1.25, 1.25, "ok")


def test_the_interval_holds_about_its_confidence_of_the_resampled_medians() -> None:
    """A percentile bootstrap: resampling the same rounds afresh (another seed), about
    ``confidence`` of the medians fall inside the interval, and a higher confidence widens it."""
    import random
    import statistics

    rng = random.Random(7)
    ratios = [1.0 + rng.random() for _ in range(50)]  # no two medians alike: no ties at a bound
    medians = [statistics.median(rng.choices(ratios, k=50)) for _ in range(4000)]
    for confidence in (0.5, 0.8, 0.95):
        low, high = interval(ratios, confidence=confidence)
        inside = sum(low <= m <= high for m in medians) / len(medians)
        assert confidence - 0.04 <= inside <= confidence + 0.04, (confidence, inside)
    assert interval(ratios, confidence=0.5)[1] < interval(ratios, confidence=0.95)[1]
