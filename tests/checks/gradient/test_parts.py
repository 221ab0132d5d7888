"""The pure parts of the gradient check, as tables: states, prefixes, transitions, words."""

from __future__ import annotations

import math

import pytest
from gradgate.checks.gradient.classify import State, state_of
from gradgate.checks.gradient.compare import Change, transition
from gradgate.checks.gradient.facts import Param
from gradgate.checks.gradient.group import cover, parent_module
from gradgate.checks.gradient.words import ratio_words, subject

NAN, INF = math.nan, math.inf


def param(
    norms: tuple[float | None, ...], *, trainable: bool = True, reachable: bool = False,
    with_grad: bool = True, without_grad: bool = False,
) -> Param:  # fmt: skip
    return Param(("p",), (2,), 2, trainable, with_grad, without_grad, reachable, norms, (0,))


# (id, param, largest norm per step, state)
STATES = [
    ("learns", param((0.5, 0.4), reachable=True), [1.0, 1.0], State.OK),
    ("gate-opens-at-step-1", param((0.0, 0.3), reachable=True), [1.0, 1.0], State.OK),
    ("tiny-at-every-step", param((1e-9, 1e-9), reachable=True), [1.0, 1.0], State.TINY),
    ("small-but-not-tiny", param((1e-6, 1e-9), reachable=True), [1.0, 1.0], State.OK),
    ("nan-at-one-step", param((0.5, NAN), reachable=True), [1.0, 1.0], State.NON_FINITE),
    ("inf", param((INF,), reachable=True), [1.0], State.NON_FINITE),
    ("zero-though-reached", param((0.0, 0.0), reachable=True), [1.0, 1.0], State.ZERO),
    ("unreached-ran-with-grad", param((None, None)), [1.0, 1.0], State.DETACHED),
    ("ran-only-without-grad", param((None,), with_grad=False, without_grad=True), [1.0],
     State.NO_GRAD),
    ("never-ran", param((None,), with_grad=False), [1.0], State.NEVER_EXECUTED),
    ("frozen-wins", param((None,), trainable=False), [1.0], State.FROZEN),
]  # fmt: skip


@pytest.mark.parametrize(
    ("p", "largest", "state"), [s[1:] for s in STATES], ids=[s[0] for s in STATES]
)
def test_each_parameter_gets_one_state(p: Param, largest: list[float], state: State) -> None:
    assert state_of(p, largest) is state


UNIVERSE = [
    "wte.weight", "blocks.0.up.weight", "blocks.0.up.bias", "blocks.0.down.weight",
    "blocks.1.up.weight", "blocks.1.up.bias", "lm_head.weight", "scale",
]  # fmt: skip


@pytest.mark.parametrize(
    ("selected", "patterns"),
    [
        (["blocks.0.up.weight", "blocks.0.up.bias"], ["blocks.0.up.*"]),
        (["blocks.0.up.weight"], ["blocks.0.up.weight"]),
        (["blocks.0.up.weight", "blocks.0.up.bias", "blocks.0.down.weight"], ["blocks.0.*"]),
        ([n for n in UNIVERSE if n.startswith("blocks.")], ["blocks.*"]),
        (["blocks.0.up.bias", "blocks.1.up.bias"], ["blocks.0.up.bias", "blocks.1.up.bias"]),
        (["scale", "lm_head.weight"], ["lm_head.weight", "scale"]),
        (UNIVERSE, ["*"]),
        ([], []),
    ],
)
def test_cover_names_the_fewest_prefixes_that_hold_exactly_the_selection(
    selected: list[str], patterns: list[str]
) -> None:
    found = cover(selected, UNIVERSE)
    assert [p for p, _ in found] == patterns
    assert sorted(n for _, members in found for n in members) == sorted(selected)


@pytest.mark.parametrize(
    ("pattern", "parent"),
    [("proj.*", ""), ("proj.weight", ""), ("blocks.3.attn.*", "blocks.3"),
     ("blocks.3.attn.qkv.weight", "blocks.3.attn"), ("scale", "")],
)  # fmt: skip
def test_a_findings_code_is_the_forward_of_the_module_that_uses_it(
    pattern: str, parent: str
) -> None:
    assert parent_module(pattern) == parent


# (base state, head state, change): what the PR did to one parameter
TRANSITIONS = [
    (State.OK, State.DETACHED, Change.LOST),
    (State.OK, State.NON_FINITE, Change.LOST),
    (State.OK, State.FROZEN, Change.FROZEN),
    (State.OK, State.TINY, Change.WEAKENED),
    (State.FROZEN, State.FROZEN, None),  # N1
    (State.FROZEN, State.OK, None),
    (State.FROZEN, State.DETACHED, Change.NEW_DEAD),
    (State.NEVER_EXECUTED, State.NEVER_EXECUTED, Change.STILL_DEAD),  # N2
    (State.DETACHED, State.NO_GRAD, Change.STILL_DEAD),  # dead either way
    (State.DETACHED, State.OK, Change.GAINED),  # G16: it trains now
    (State.NO_GRAD, State.OK, Change.GAINED),
    (State.NON_FINITE, State.OK, None),  # fixed
]


@pytest.mark.parametrize(("was", "now", "change"), TRANSITIONS)
def test_only_a_change_for_the_worse_of_a_learning_parameter_is_a_regression(
    was: State, now: State, change: Change | None
) -> None:
    p = param((1.0,))
    assert transition(was, now, p, p) == (change, None)


@pytest.mark.parametrize(
    ("base", "head", "change"),
    [((1.0, 1.0), (0.05, 0.05), Change.NORM_RATIO), ((1.0,), (20.0,), Change.NORM_RATIO),
     ((1.0,), (0.2,), None), ((0.0, 1.0), (0.0, 0.5), None),
     ((0.0, 2.0), (0.0, 0.1), Change.NORM_RATIO)],
)  # fmt: skip
def test_a_norm_ratio_beyond_10x_either_way_at_the_first_comparable_step_is_flagged(
    base: tuple[float, ...], head: tuple[float, ...], change: Change | None
) -> None:
    found, ratio = transition(State.OK, State.OK, param(base), param(head))
    assert found == change
    assert (ratio is not None) == (change is not None)


def test_words_for_subjects_and_ratios() -> None:
    assert subject(["proj.*"], ["proj.weight", "proj.bias"]) == "`proj.*` (2 parameters)"
    assert subject(["proj.weight"], ["proj.weight"]) == "`proj.weight`"
    assert subject(["*"], ["a", "b"]) == "every parameter (2)"
    assert subject(["up.*", "down.*"], ["a", "b", "c", "d"]) == "`up.*`, `down.*` (4 parameters)"
    assert ratio_words([0.04]) == "25× smaller"
    assert ratio_words([0.05, 0.02]) == "between 20× and 50× smaller"
    assert ratio_words([12.0]) == "12× larger"
