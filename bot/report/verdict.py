"""Pure verdict: check results -> success | failure | error. Error never counts as success."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from enum import StrEnum

from gradgate.checks.base import CheckResult, Outcome


class Verdict(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    ERROR = "error"
    # Some check waits (App mode: for /ok-to-test or a GPU worker) and nothing failed yet.
    # An interim verdict: the status stays pending; never a pass.
    PENDING = "pending"

    @property
    def exit_code(self) -> int:
        return {Verdict.SUCCESS: 0, Verdict.FAILURE: 1, Verdict.ERROR: 2, Verdict.PENDING: 2}[self]


# A check that could not run (error), or that the config requires but this version cannot
# run (unavailable), means gradgate could not decide: never a pass.
_UNDECIDED = {Outcome.ERROR, Outcome.UNAVAILABLE}


def verdict_for(
    results: Sequence[CheckResult],
    *,
    error: str | None = None,
    planned: Collection[str] = (),
) -> Verdict:
    """A definite regression (fail) outranks an undecided check; anything undecided is an error.

    ``planned``: the checks the plan selected. One with no result (lost, crashed, never run: the
    Action fans checks out to separate jobs) is undecided, never a silent pass.
    """
    if error is not None:
        return Verdict.ERROR
    outcomes = {r.outcome for r in results}
    if set(planned) - {r.check for r in results}:
        outcomes.add(Outcome.ERROR)
    if Outcome.FAIL in outcomes:
        return Verdict.FAILURE
    if outcomes & _UNDECIDED:
        return Verdict.ERROR
    if Outcome.WAITING in outcomes:
        return Verdict.PENDING
    return Verdict.SUCCESS
