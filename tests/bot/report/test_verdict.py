from __future__ import annotations

import pytest
from gradgate.bot.report.verdict import Verdict, verdict_for
from gradgate.checks.base import CheckResult, Outcome


def results(*outcomes: Outcome) -> tuple[CheckResult, ...]:
    return tuple(CheckResult(check=f"c{i}", outcome=o, summary="") for i, o in enumerate(outcomes))


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ((), Verdict.SUCCESS),
        ((Outcome.PASS,), Verdict.SUCCESS),
        ((Outcome.PASS, Outcome.WARN, Outcome.SKIPPED), Verdict.SUCCESS),
        ((Outcome.PASS, Outcome.FAIL), Verdict.FAILURE),
        ((Outcome.ERROR,), Verdict.ERROR),
        ((Outcome.PASS, Outcome.ERROR), Verdict.ERROR),
        ((Outcome.UNAVAILABLE,), Verdict.ERROR),
        ((Outcome.PASS, Outcome.UNAVAILABLE), Verdict.ERROR),
        ((Outcome.FAIL, Outcome.ERROR), Verdict.FAILURE),
        ((Outcome.FAIL, Outcome.UNAVAILABLE), Verdict.FAILURE),
    ],
)
def test_verdict_table(outcomes: tuple[Outcome, ...], expected: Verdict) -> None:
    assert verdict_for(results(*outcomes)) is expected


def test_an_error_outside_the_checks_is_never_success() -> None:
    assert verdict_for(results(Outcome.PASS), error="could not read base") is Verdict.ERROR


@pytest.mark.parametrize(
    ("verdict", "code"), [(Verdict.SUCCESS, 0), (Verdict.FAILURE, 1), (Verdict.ERROR, 2)]
)
def test_exit_codes(verdict: Verdict, code: int) -> None:
    assert verdict.exit_code == code


def test_a_planned_check_without_a_result_is_an_error_never_success() -> None:
    ran = results(Outcome.PASS)  # c0 passed; c1 was planned and its result was lost
    assert verdict_for(ran, planned=("c0", "c1")) is Verdict.ERROR
    assert verdict_for(ran, planned=("c0",)) is Verdict.SUCCESS


def test_a_failure_still_outranks_a_lost_result() -> None:
    assert verdict_for(results(Outcome.FAIL), planned=("c0", "c9")) is Verdict.FAILURE
