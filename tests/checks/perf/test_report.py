"""The perf check's words and outcome from judged measures: `strict`, samples/s, memory."""

from __future__ import annotations

from typing import Any

from gradgate.checks.base import Outcome, Severity
from gradgate.checks.perf.compare import Timing
from gradgate.checks.perf.report import result_for
from gradgate.checks.perf.settings import PerfSettings

FACTS: dict[str, Any] = {
    "base": {"device": "cpu", "clock": "perf_counter", "batch": 64},
    "head": {"device": "cpu", "clock": "perf_counter", "batch": 64},
}
STEADY = Timing("infer", 0.010, 0.0101, 1.01, 0.99, 1.03, "ok")
NOISY = Timing("train", 0.020, 0.023, 1.14, 0.95, 1.40, "noisy")


def test_a_run_too_noisy_to_decide_is_a_note_by_default() -> None:
    result = result_for((NOISY, STEADY), FACTS, PerfSettings())

    assert result.outcome is Outcome.PASS
    noisy = next(f for f in result.findings if f.kind == "perf-noisy")
    assert noisy.severity is Severity.NOTE
    assert "too noisy to decide against `max_slowdown` (1.15×)" in noisy.message


def test_a_run_too_noisy_to_decide_is_an_error_when_strict() -> None:
    result = result_for((NOISY, STEADY), FACTS, PerfSettings(strict=True))

    assert result.outcome is Outcome.ERROR
    noisy = next(f for f in result.findings if f.kind == "perf-noisy")
    assert noisy.severity is Severity.BLOCKING
    assert noisy.message.endswith("more `rounds` narrow it (`strict` makes this an error)")
    assert [row["verdict"] for row in result.extra["rows"]] == ["noisy", "ok"]  # still shown


def test_strict_changes_nothing_when_the_run_decides() -> None:
    result = result_for((STEADY,), FACTS, PerfSettings(strict=True))

    assert result.outcome is Outcome.PASS


def test_the_step_time_finding_gives_samples_per_second_at_base_and_head() -> None:
    slower = Timing("train", 0.016, 0.064, 4.0, 3.8, 4.2, "beyond")

    result = result_for((slower,), FACTS, PerfSettings())

    assert result.outcome is Outcome.FAIL
    assert result.findings[0].message == (
        "training step time at head is 4.00× base (16 → 64 ms, 4,000 → 1,000 samples/s; "
        "95% interval 3.80–4.20×): the whole interval is above `max_slowdown` (1.15×)"
    )
    assert (result.extra["rows"][0]["base_rate"], result.extra["rows"][0]["head_rate"]) == (
        4000.0,
        1000.0,
    )


def test_no_samples_per_second_when_the_inputs_have_no_batch_dimension() -> None:
    facts = {side: {**values, "batch": None} for side, values in FACTS.items()}

    result = result_for((STEADY,), facts, PerfSettings())

    assert "samples/s" not in result.findings[0].message
    assert result.extra["rows"][0]["base_rate"] is None


def test_peak_memory_beyond_max_memory_growth_blocks_in_megabytes() -> None:
    grown = Timing("memory", 13.6e6, 51.4e6, 3.78, 3.78, 3.78, "beyond")

    result = result_for((STEADY, grown), FACTS, PerfSettings())

    assert result.outcome is Outcome.FAIL
    assert result.findings[0].kind == "perf-memory-growth"
    assert result.findings[0].message == (
        "peak memory at head is 3.78× base (13.6 → 51.4 MB): the whole interval is above "
        "`max_memory_growth` (1.1×)"
    )
    assert result.extra["rows"][1]["unit"] == "MB"


def test_peak_memory_that_could_not_be_counted_warns_and_step_time_still_counts() -> None:
    why = {"head": "NotImplementedError: an op the counting mode cannot see"}

    result = result_for((STEADY,), FACTS, PerfSettings(), unmeasured=why)

    assert result.outcome is Outcome.WARN
    warning = next(f for f in result.findings if f.kind == "perf-memory-unmeasured")
    assert warning.revision == "head"
    assert warning.message.startswith("peak memory could not be counted at head (NotImpl")
    assert "`max_memory_growth` was not applied" in warning.message
