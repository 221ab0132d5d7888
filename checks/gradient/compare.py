"""Base vs head, parameter by parameter and for the run as a whole (pure).

A parameter that learned at base (ok) and does not at head is a regression; one new at head
that is dead is one too; a problem present at both revisions is only worth a note; a gradient
norm that moved by more than NORM_RATIO either way is worth a look; one dead at base that learns
at head has gained a gradient (weighed by `gained`). Allow rules turn the
findings about matching parameters into notes that carry the rule's reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase

from gradgate.checks.gradient.classify import State, classify
from gradgate.checks.gradient.facts import Param, RevisionFacts
from gradgate.checks.gradient.settings import AllowRule

NORM_RATIO = 10.0


class Change(StrEnum):
    LOST = "lost-gradient"  # ok at base, dead at head
    FROZEN = "frozen"  # ok at base, requires_grad=False at head
    WEAKENED = "weakened"  # ok at base, tiny at head
    NEW_DEAD = "new-dead"  # new (or newly trainable) at head, and dead
    NEW_TINY = "new-tiny"
    BECAME_BUFFER = "became-buffer"  # a trainable parameter at base, a buffer at head
    REMOVED = "removed"  # a trainable parameter at base, gone at head
    NORM_RATIO = "norm-ratio"  # learns at both, but the gradient norm moved > NORM_RATIO
    STILL_DEAD = "still-dead"  # dead (or tiny) at both revisions
    # trainable but dead at base (detached, no_grad, zero, never run), learns at head: the
    # change makes it train, and what downstream code sees moves (SCENARIOS G16)
    GAINED = "gained"


@dataclass(frozen=True, slots=True)
class Row:
    name: str  # the head's name for it, or the base's when it is gone at head
    names: tuple[str, ...]  # every name it has at either revision (for allow rules)
    base: State | None  # None: not a parameter at that revision
    head: State | None
    change: Change | None
    ratio: float | None = None  # head norm / base norm, for NORM_RATIO
    allowed: str | None = None  # the reason of the allow rule that matches it


@dataclass(frozen=True, slots=True)
class Comparison:
    base: RevisionFacts
    head: RevisionFacts
    rows: tuple[Row, ...]
    cut: tuple[str | None, str | None]  # graph_cut() at base and head
    unregistered: tuple[tuple[str, ...], tuple[str, ...]]  # (new at head, at both)
    hooks: tuple[tuple[tuple[str, tuple[int, ...]], ...], tuple[str, ...]]  # (new, at both)
    untied: tuple[tuple[str, ...], ...]  # names of one parameter at base, several at head
    tied: tuple[tuple[str, ...], ...]  # names of several parameters at base, one at head

    def changed(self, *changes: Change) -> list[Row]:
        return [row for row in self.rows if row.change in changes]


def graph_cut(facts: RevisionFacts) -> str | None:
    """Where the autograd graph ends before any parameter: "output" (no floating output
    requires grad), "loss" (the outputs do, the loss does not), or None."""
    if any(s.outputs_with_grad == 0 for s in facts.steps):
        return "output"
    if any(not s.loss_with_grad for s in facts.steps):
        return "loss"
    return None


def compare(
    base: RevisionFacts, head: RevisionFacts, *, allow: Sequence[AllowRule] = ()
) -> Comparison:
    base_states, head_states = classify(base), classify(head)
    head_by = head.by_name()
    rows: list[Row] = []
    matched: set[str] = set()
    for old in base.params:
        new = next((head_by[n] for n in old.names if n in head_by), None)
        was = base_states[old.name]
        if new is None:
            gone = Change.BECAME_BUFFER if set(old.names) & head.buffers else Change.REMOVED
            change = gone if was is not State.FROZEN else None
            rows.append(Row(old.name, old.names, was, None, change))
            continue
        matched.add(new.name)
        now = head_states[new.name]
        change, ratio = transition(was, now, old, new)
        names = tuple(dict.fromkeys((*new.names, *old.names)))
        rows.append(Row(new.name, names, was, now, change, ratio))
    for new in head.params:
        if new.name in matched:
            continue
        now = head_states[new.name]
        change = Change.NEW_DEAD if now.dead else Change.NEW_TINY if now is State.TINY else None
        rows.append(Row(new.name, new.names, None, now, change))
    return Comparison(
        base=base,
        head=head,
        rows=tuple(_allowed(row, allow) for row in rows),
        cut=(graph_cut(base), graph_cut(head)),
        unregistered=_split(_unregistered(base), _unregistered(head)),
        hooks=_hooks(base, head),
        untied=_regrouped(base, head),
        tied=_regrouped(head, base),
    )


def transition(
    was: State, now: State, old: Param, new: Param
) -> tuple[Change | None, float | None]:
    if was is State.OK:
        if now is State.OK:
            ratio = _ratio(old.norms, new.norms)
            far = ratio is not None and not (1 / NORM_RATIO <= ratio <= NORM_RATIO)
            return (Change.NORM_RATIO, ratio) if far else (None, None)
        if now is State.TINY:
            return Change.WEAKENED, None
        return (Change.FROZEN if now is State.FROZEN else Change.LOST), None
    if was is State.FROZEN:
        if now.dead:
            return Change.NEW_DEAD, None
        return (Change.NEW_TINY if now is State.TINY else None), None
    # dead or tiny at base
    if now is State.OK and was in _CUT_OFF:
        return Change.GAINED, None
    return (Change.STILL_DEAD if now.dead or now is State.TINY else None), None


_CUT_OFF = {State.DETACHED, State.NO_GRAD, State.ZERO, State.NEVER_EXECUTED}


def _ratio(base: Sequence[float | None], head: Sequence[float | None]) -> float | None:
    """head / base at the first step where both gradients are finite and non-zero: the same
    weights and batch at step 0, so the ratio measures the change, not training."""
    for old, new in zip(base, head, strict=False):
        if old and new and math.isfinite(old) and math.isfinite(new):
            return new / old
    return None


def allow_rule_for(row: Row, rules: Sequence[AllowRule]) -> AllowRule | None:
    """The first `allow` rule that covers a changed row; None: none does (or it is unchanged)."""
    if row.change is None:
        return None
    return next((r for r in rules if any(fnmatchcase(n, r.pattern) for n in row.names)), None)


def _allowed(row: Row, rules: Sequence[AllowRule]) -> Row:
    rule = allow_rule_for(row, rules)
    if rule is None:
        return row
    return Row(row.name, row.names, row.base, row.head, row.change, row.ratio, rule.reason)


def _unregistered(facts: RevisionFacts) -> list[str]:
    return sorted(name or f"a tensor of shape {list(shape)}" for name, shape in facts.unregistered)


def _split(base: Sequence[str], head: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return tuple(n for n in head if n not in base), tuple(n for n in head if n in base)


def _hooks(
    base: RevisionFacts, head: RevisionFacts
) -> tuple[tuple[tuple[str, tuple[int, ...]], ...], tuple[str, ...]]:
    def growing(facts: RevisionFacts) -> dict[str, tuple[int, ...]]:
        found = {
            p.name: p.hooks for p in facts.params if len(p.hooks) > 1 and p.hooks[-1] > p.hooks[0]
        }
        for name, counts in facts.module_hooks:
            found[f"{name or '(the model)'} (module)"] = counts
        return found

    old, new = growing(base), growing(head)
    return tuple((n, c) for n, c in new.items() if n not in old), tuple(n for n in new if n in old)


def _regrouped(one: RevisionFacts, other: RevisionFacts) -> tuple[tuple[str, ...], ...]:
    """Names that are one parameter in ``one`` but several in ``other``."""
    other_by = other.by_name()
    out = []
    for param in one.params:
        present = [n for n in param.names if n in other_by]
        if len({id(other_by[n]) for n in present}) > 1:
            out.append(tuple(present))
    return tuple(out)
