"""Each parameter's state at one revision, from what the child measured (pure).

ok              a finite, non-zero gradient at some step
tiny            non-zero, but below TINY_RATIO of the model's largest gradient norm at every step
zero            reached from the loss, but the gradient is exactly zero at every step
detached        its module ran with grad on, but the loss's graph never reaches it
no-grad         its module ran only with grad disabled (no_grad, inference_mode, reentrant
                activation checkpointing on inputs that do not require grad)
never-executed  no module that owns it ran
non-finite      NaN or infinity in its gradient at some step
frozen          requires_grad is False
"""

from __future__ import annotations

import math
from enum import StrEnum

from gradgate.checks.gradient.facts import Param, RevisionFacts

TINY_RATIO = 1e-7


class State(StrEnum):
    OK = "ok"
    TINY = "tiny"
    ZERO = "zero"
    DETACHED = "detached"
    NO_GRAD = "no-grad"
    NEVER_EXECUTED = "never-executed"
    NON_FINITE = "non-finite"
    FROZEN = "frozen"

    @property
    def dead(self) -> bool:
        """Learns nothing although it is trainable."""
        return self in _DEAD


_DEAD = {State.ZERO, State.DETACHED, State.NO_GRAD, State.NEVER_EXECUTED, State.NON_FINITE}


def classify(facts: RevisionFacts) -> dict[str, State]:
    """Parameter name (the first of its names) -> its state."""
    largest = [
        max((n for n in step if n is not None and math.isfinite(n)), default=0.0)
        for step in zip(*(p.norms for p in facts.params), strict=True)
    ]
    return {p.name: state_of(p, largest) for p in facts.params}


def state_of(param: Param, largest: list[float]) -> State:
    if not param.trainable:
        return State.FROZEN
    norms = [n for n in param.norms if n is not None]
    if any(not math.isfinite(n) for n in norms):
        return State.NON_FINITE
    if any(n > 0 for n in norms):
        if all(
            n is None or n < TINY_RATIO * top for n, top in zip(param.norms, largest, strict=True)
        ):
            return State.TINY
        return State.OK
    if param.reachable:
        return State.ZERO
    if param.ran_with_grad:
        return State.DETACHED
    if param.ran_without_grad:
        return State.NO_GRAD
    return State.NEVER_EXECUTED
