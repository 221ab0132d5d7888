"""Base vs head facts, written by hand, through the comparison to the findings a user reads: the
finding kind of each change, parameters removed or turned into buffers, renames and the graph
cut. The scenario batteries (test_scenarios.py) reach the same code through real children;
these tables reach it in milliseconds, so a mutation run of compare.py sees them."""

from __future__ import annotations

from dataclasses import replace

import pytest
from gradgate.checks.base import Severity
from gradgate.checks.gradient.compare import Change, compare, graph_cut
from gradgate.checks.gradient.facts import Param, RevisionFacts, Step
from gradgate.checks.gradient.findings import findings_for
from gradgate.checks.gradient.settings import AllowRule

# How a parameter looks at one revision, by the state it is classified in.
LOOKS = {
    "ok": {"norms": (0.5,), "reachable": True},
    "tiny": {"norms": (1e-9,), "reachable": True},
    "detached": {"norms": (None,)},
    "frozen": {"norms": (None,), "trainable": False},
}


def param(names: str | tuple[str, ...], look: str = "ok", norms: float | None = None) -> Param:
    how = {"trainable": True, "reachable": False, **LOOKS[look]}
    return Param(
        names=(names,) if isinstance(names, str) else names,
        shape=(2,),
        numel=2,
        trainable=bool(how["trainable"]),
        ran_with_grad=True,
        ran_without_grad=False,
        reachable=bool(how["reachable"]),
        norms=(norms,) if norms is not None else how["norms"],  # type: ignore[arg-type]
        hooks=(0,),
    )


# Every revision has a parameter that learns, so "tiny" is tiny next to it.
ANCHOR = param("anchor", norms=1.0)


def facts(
    revision: str, *params: Param, buffers: tuple[str, ...] = (), output_grad: int = 1,
    loss_grad: bool = True, unregistered: tuple[tuple[str | None, tuple[int, ...]], ...] = (),
    module_hooks: tuple[tuple[str, tuple[int, ...]], ...] = (),
) -> RevisionFacts:  # fmt: skip
    steps = max((len(p.norms) for p in params), default=1)
    return RevisionFacts(
        revision=revision, torch="2", device="cpu", loss="user",
        steps=(Step(1, output_grad, loss_grad),) * steps,
        params=(replace(ANCHOR, norms=(1.0,) * steps), *params),
        buffers=frozenset(buffers), top_modules=(), unregistered=unregistered,
        module_hooks=module_hooks, sources={}, failure=None,
    )  # fmt: skip


def kinds(base: RevisionFacts, head: RevisionFacts) -> dict[str, Severity]:
    return {f.kind: f.severity for f in findings_for(compare(base, head))}


# (base look or None: new at head, head look, the finding a user reads)
CHANGES = [
    ("ok", "detached", "gradient-lost-gradient", Severity.BLOCKING),
    ("ok", "frozen", "gradient-frozen", Severity.BLOCKING),
    ("ok", "tiny", "gradient-weakened", Severity.WARNING),
    (None, "detached", "gradient-new-dead", Severity.BLOCKING),
    (None, "tiny", "gradient-new-tiny", Severity.WARNING),
    ("frozen", "detached", "gradient-new-dead", Severity.BLOCKING),
    ("detached", "detached", "gradient-still-dead", Severity.NOTE),
    ("detached", "ok", "gradient-gained", Severity.WARNING),
]


@pytest.mark.parametrize(("was", "now", "kind", "severity"), CHANGES)
def test_each_change_is_reported_under_its_own_kind(
    was: str | None, now: str, kind: str, severity: Severity
) -> None:
    base = facts("base") if was is None else facts("base", param("w", was))
    assert kinds(base, facts("head", param("w", now))) == {kind: severity}


def test_a_parameter_that_became_a_buffer_blocks_and_one_removed_is_a_note() -> None:
    base = facts("base", param("w"), param("v"))
    rows = {r.name: r for r in compare(base, facts("head", buffers=("w",))).rows}
    assert (rows["w"].change, rows["v"].change) == (Change.BECAME_BUFFER, Change.REMOVED)
    assert kinds(base, facts("head", buffers=("w",))) == {
        "gradient-became-buffer": Severity.BLOCKING,
        "gradient-removed": Severity.NOTE,
    }


def test_a_frozen_parameter_removed_at_head_is_no_change() -> None:
    base = facts("base", param("w", "frozen"))
    assert [r.change for r in compare(base, facts("head")).rows if r.name == "w"] == [None]


def test_a_renamed_parameter_keeps_both_names_and_allow_rules_match_either() -> None:
    base = facts("base", param(("old.w", "tied.w")))
    head = facts("head", param(("new.w", "tied.w"), "detached"))
    [row] = [r for r in compare(base, head).rows if r.name != "anchor"]
    assert row.names == ("new.w", "tied.w", "old.w")
    rule = AllowRule(pattern="old.*", reason="moved on purpose")
    [allowed] = [r for r in compare(base, head, allow=[rule]).rows if r.name != "anchor"]
    assert (allowed.change, allowed.allowed) == (Change.LOST, "moved on purpose")


def test_rows_of_parameters_gone_or_new_carry_no_ratio() -> None:
    base = facts("base", param("gone"))
    head = facts("head", param("new", "detached"))
    assert [r.ratio for r in compare(base, head).rows] == [None, None, None]


@pytest.mark.parametrize(
    ("base_norms", "head_norms", "change"),
    [((1.0,), (10.5,), Change.NORM_RATIO), ((1.0,), (10.0,), None), ((1.0,), (0.1,), None),
     ((1.0,), (0.095,), Change.NORM_RATIO),
     # the first step where both are finite and non-zero counts, whichever side is not
     ((0.0, 1.0), (0.5, 20.0), Change.NORM_RATIO), ((1.0, 1.0), (None, 2.0), None)],
)  # fmt: skip
def test_the_norm_ratio_flags_only_beyond_ten_times(
    base_norms: tuple[float | None, ...],
    head_norms: tuple[float | None, ...],
    change: Change | None,
) -> None:
    base = facts("base", replace(param("w"), norms=base_norms))
    head = facts("head", replace(param("w"), norms=head_norms))
    [row] = [r for r in compare(base, head).rows if r.name == "w"]
    assert row.change is change


@pytest.mark.parametrize(
    ("output_grad", "loss_grad", "cut"), [(0, True, "output"), (1, False, "loss"), (1, True, None)]
)
def test_the_graph_cut_names_where_the_graph_ends(
    output_grad: int, loss_grad: bool, cut: str | None
) -> None:
    head = facts("head", param("w", "detached"), output_grad=output_grad, loss_grad=loss_grad)
    assert graph_cut(head) == cut
    words = {"output": "output has no grad_fn", "loss": "loss has no grad_fn"}
    found = findings_for(compare(facts("base", param("w")), head))
    if cut is None:
        assert [f.kind for f in found] == ["gradient-lost-gradient"]
    else:
        [finding] = found
        assert finding.kind == "gradient-graph-cut" and words[cut] in finding.message


def test_unregistered_tensors_new_at_head_block_and_those_at_both_are_a_note() -> None:
    base = facts("base", unregistered=(("scale", (1,)),))
    head = facts("head", unregistered=(("scale", (1,)), (None, (2, 3)), ("gate", (4,))))
    c = compare(base, head)
    assert c.unregistered == (("a tensor of shape [2, 3]", "gate"), ("scale",))
    assert [(f.kind, f.severity) for f in findings_for(c)] == [
        ("gradient-unregistered", Severity.BLOCKING),
        ("gradient-unregistered", Severity.NOTE),
    ]


@pytest.mark.parametrize(
    ("hooks", "grows"),
    [((0, 1), True), ((0, 0, 1), True), ((0, 1, 1), True), ((1, 1, 1), False), ((2,), False),
     ((), False)],
)  # fmt: skip
def test_hooks_pile_up_when_a_parameter_has_more_after_the_last_step_than_the_first(
    hooks: tuple[int, ...], grows: bool
) -> None:
    head = facts("head", replace(param("w"), hooks=hooks))
    assert compare(facts("base", param("w")), head).hooks == (
        ((("w", hooks),), ()) if grows else ((), ())
    )


def test_module_hooks_that_pile_up_name_the_module_or_the_model() -> None:
    both = (("", (0, 1, 2)),)
    head = facts("head", module_hooks=(*both, ("blocks.0", (0, 1))))
    c = compare(facts("base", module_hooks=both), head)
    assert c.hooks == ((("blocks.0 (module)", (0, 1)),), ("(the model) (module)",))
    assert [(f.kind, f.severity) for f in findings_for(c)] == [
        ("gradient-hooks-accumulate", Severity.BLOCKING),
        ("gradient-hooks-accumulate", Severity.NOTE),
    ]


def test_weights_tied_at_base_and_split_at_head_warn_and_the_reverse_is_a_note() -> None:
    tied, a, b = param(("emb.w", "head.w")), param("emb.w"), param("head.w")
    split = compare(facts("base", tied), facts("head", a, b))
    assert (split.untied, split.tied) == ((("emb.w", "head.w"),), ())
    assert [(f.kind, f.severity) for f in findings_for(split)] == [
        ("gradient-untied", Severity.WARNING)
    ]
    joined = compare(facts("base", a, b), facts("head", tied))
    assert (joined.untied, joined.tied) == ((), (("emb.w", "head.w"),))
    assert [(f.kind, f.severity) for f in findings_for(joined)] == [
        ("gradient-tied", Severity.NOTE)
    ]
