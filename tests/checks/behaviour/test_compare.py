"""The behaviour check's judgement, pure: base's and head's facts -> findings (no torch)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from gradgate.checks.base import Finding, Severity
from gradgate.checks.behaviour import compare, words
from gradgate.checks.behaviour.deleted import deletion_lines
from gradgate.checks.behaviour.facts import VariantFacts, parse
from gradgate.checks.behaviour.settings import BehaviourSettings
from gradgate.checks.diff import LineSpan
from gradgate.checks.errors import ModelError
from gradgate.checks.gradient.edits import GradientEdit
from gradgate.checks.model.lines import ClassSource, PullDiff

ATTENTION = ClassSource("Attention", "model.py", 12, 10, 30)
DIFF = PullDiff({"model.py": (LineSpan(20, 20),)})
HOLDS: dict[str, Any] = {"holds": True}
NOT_APPLICABLE: dict[str, Any] = {"holds": None, "why": "no-sequence-input"}
FIRST = {"module": "blocks.0.attn", "call": 0, "diff": 0.5, "scale": 1.0}
RANDOM = {"holds": False, "outputs": {"equal": False, "index": 0, "diff": 0.3, "scale": 1.0},
          "first": FIRST}  # fmt: skip
STATE = {"holds": False, "buffers": [{"name": "blocks.0.attn.count", "diff": 1.0, "scale": 1.0}]}


def judge(*args: Any) -> list[Finding]:
    """The findings alone (what an `allow` rule accepted is tested on its own)."""
    return compare.judge(*args)[0]


def facts(*, same: dict[str, Any] | None = None, **invariants: dict[str, Any]) -> VariantFacts:
    named = {"eval-random": HOLDS, "eval-state": HOLDS, "causality": NOT_APPLICABLE}
    named.update({k.replace("_", "-"): v for k, v in invariants.items()})
    return VariantFacts(None, named, same or {}, {"blocks.0.attn": ATTENTION})


@pytest.mark.parametrize(
    ("base", "head", "expected"),
    [
        (facts(), facts(eval_random=RANDOM), [("behaviour-eval-random", Severity.BLOCKING)]),
        (facts(eval_random=RANDOM), facts(eval_random=RANDOM), []),  # random by design
        (facts(), facts(eval_state=STATE), [("behaviour-eval-state", Severity.BLOCKING)]),
        (facts(eval_state=STATE), facts(eval_state=STATE),
         [("behaviour-eval-state", Severity.WARNING)]),
        (facts(causality=HOLDS), facts(causality=RANDOM),
         [("behaviour-causality", Severity.BLOCKING)]),
        (facts(causality=RANDOM), facts(causality=RANDOM), []),  # not a sequence model
        (facts(), facts(causality=RANDOM), []),  # not probed at base
    ],
    ids=["eval-random-breaks", "random-at-both", "eval-state-breaks", "eval-state-at-both",
         "causality-breaks", "never-causal", "causality-new"],
)  # fmt: skip
def test_an_invariant_blocks_only_when_it_held_at_base(
    base: VariantFacts, head: VariantFacts, expected: list[tuple[str, Severity]]
) -> None:
    found = judge([base], [head], DIFF)
    assert [(f.kind, f.severity) for f in found] == expected
    for finding in found:
        assert (finding.file, finding.line) == ("model.py", 20)  # the line changed in its class
        assert "`blocks.0.attn` (`Attention`)" in finding.message


SAME = {
    "compared": True,
    "init": [],
    "outputs": {"equal": True},
    "first": None,
    "loss": {"base": 1.5, "head": 1.5, "equal": True},
    "gradients": {"equal": True, "differ": [], "count": 0},
    "after": {"equal": True},
    "buffers": [],
}


def same(**changes: Any) -> dict[str, Any]:
    return {**SAME, **changes}


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (same(outputs={"equal": False, "index": 0, "diff": 2.0, "scale": 4.0}, first=FIRST,
              loss={"base": 1.5, "head": 9.0, "equal": False}), "behaviour-output-changed"),
        (same(loss={"base": 1.5, "head": 9.0, "equal": False},
              gradients={"equal": False, "differ": [{"parameter": "blocks.0.attn.w"}]}),
         "behaviour-loss-changed"),
        (same(gradients={"equal": False, "count": 3, "differ": [
            {"parameter": "blocks.0.attn.w", "diff": 0.1, "scale": 1.0}]}),
         "behaviour-gradient-changed"),
        (same(buffers=[{"name": "blocks.0.attn.running", "diff": 0.1, "scale": 1.0}]),
         "behaviour-training-changed"),
    ],
    ids=["outputs", "loss", "gradients", "training"],
)  # fmt: skip
def test_same_weights_report_the_first_probe_that_differs_only(head: Any, kind: str) -> None:
    (finding,) = judge([facts()], [facts(same=head)], DIFF)
    assert (finding.kind, finding.severity) == (kind, Severity.BLOCKING)


def test_a_changed_loss_names_both_values() -> None:
    head = same(loss={"base": 1.5, "head": 9.0, "equal": False})
    (finding,) = judge([facts()], [facts(same=head)], DIFF)
    assert "9 at head and was 1.5 at base" in finding.message


def test_an_init_change_warns_naming_the_tensors_and_both_statistics() -> None:
    init = [{"name": "blocks.0.attn.w", "base": [0.0, 0.02], "head": [0.0, 0.05]}]
    (finding,) = judge([facts()], [facts(same=same(init=init))], DIFF)
    assert finding.severity is Severity.WARNING
    assert "`blocks.0.attn.w` mean 0, std 0.02 at base, mean 0, std 0.05 at head" in finding.message


def test_same_weight_findings_say_their_variant_and_unpaired_variants_are_notes() -> None:
    base = [VariantFacts("flash", {}), VariantFacts("old", {})]
    changed = same(outputs={"equal": False, "index": 0, "diff": 2.0, "scale": 4.0})
    head = [VariantFacts("flash", {}, changed), VariantFacts("new", {})]
    found = {(f.kind, f.severity, f.message.split(":")[0]) for f in judge(base, head, DIFF)}
    assert found == {
        ("behaviour-output-changed", Severity.BLOCKING, "In variant `flash`"),
        ("behaviour-variant-unpaired", Severity.NOTE, "Variant `new` exists only at head"),
        ("behaviour-variant-unpaired", Severity.NOTE, "Variant `old` exists only at base"),
    }


def test_a_pure_deletion_is_placed_at_the_head_line_now_in_its_place() -> None:
    old = b"a\nb\nmask\nc\n"
    assert deletion_lines(old, b"a\nb\nc\n") == (LineSpan(3, 3),)
    assert deletion_lines(old, b"a\nb\nmask\n") == (LineSpan(3, 3),)  # at the end: the one before
    assert deletion_lines(old, b"a\nB\nmask\nc\n") == ()  # a replacement is a changed line already


def test_an_answer_of_another_shape_is_a_model_error() -> None:
    with pytest.raises(ModelError, match="at head"):
        parse({"problem": "x"}, revision="head")


def test_a_blocking_finding_carries_the_allow_rule_that_accepts_it() -> None:
    head = same(outputs={"equal": False, "index": 0, "diff": 2.0, "scale": 4.0}, first=FIRST)
    (finding,) = judge([facts()], [facts(same=head)], DIFF)
    assert finding.details_lang == "yaml"
    assert finding.details is not None and "pattern: 'blocks.0.attn'" in finding.details
    pasted = BehaviourSettings.model_validate(
        yaml.safe_load(finding.details)["checks"]["behaviour"]
    )
    assert [rule.pattern for rule in pasted.allow] == ["blocks.0.attn"]
    assert "the rule counts only from the base branch: merge it there first" in finding.message
    rules = [("blocks.*", "post-norm on purpose")]
    (accepted,), (rule,) = compare.judge([facts()], [facts(same=head)], DIFF, rules)
    assert accepted.severity is Severity.NOTE
    assert accepted.message.endswith("Allowed by the config: post-norm on purpose")
    # Listed with the report's suppressions, from the config, at the finding's line (#34).
    assert (rule.rule, rule.origin, rule.reason) == ("allow: blocks.*", "config", rules[0][1])
    assert (rule.file, rule.line) == ("model.py", 20)


def test_the_loss_and_the_models_own_forward_have_names_to_allow() -> None:
    loss = same(loss={"base": 1.5, "head": 9.0, "equal": False})
    (finding,) = judge([facts()], [facts(same=loss)], DIFF, [("<model>", "no")])
    assert finding.severity is Severity.BLOCKING and "'<loss>'" in str(finding.details)
    (finding,) = judge([facts()], [facts(same=loss)], DIFF, [("<loss>", "sum on purpose")])
    assert finding.severity is Severity.NOTE
    root = same(outputs={"equal": False, "index": 0}, first={**FIRST, "module": ""})
    (finding,) = judge([facts()], [facts(same=root)], DIFF, [("<model>", "on purpose")])
    assert finding.severity is Severity.NOTE


@pytest.mark.parametrize(
    ("head", "severity"),
    [
        ({"compared": False, "why": "not-loaded", "missing": ["fc.weight"]}, Severity.NOTE),
        ({"compared": False, "why": "too-large"}, Severity.NOTE),
        ({"compared": False, "why": "raised", "error": "RuntimeError: shapes"}, Severity.WARNING),
    ],
    ids=["not-loaded", "too-large", "raised"],
)
def test_same_weights_not_compared_is_said_never_a_silent_pass(
    head: dict[str, Any], severity: Severity
) -> None:
    (finding,) = judge([facts()], [facts(same=head)], DIFF)
    assert (finding.kind, finding.severity) == ("behaviour-not-compared", severity)


@pytest.mark.parametrize(
    "construct",
    [".detach()", ".detach_()", ".data", "torch.no_grad", "torch.inference_mode",
     "torch.set_grad_enabled"],
)  # fmt: skip
def test_a_changed_gradient_points_at_the_detaching_edit_in_its_class(construct: str) -> None:
    head = same(gradients={"equal": False, "count": 1, "differ": [
        {"parameter": "blocks.0.attn.w", "diff": 0.1, "scale": 1.0}]})  # fmt: skip
    lines = (LineSpan(15, 15), LineSpan(20, 20))
    detached = PullDiff({"model.py": lines}, (GradientEdit("model.py", 20, construct),))
    (finding,) = judge([facts()], [facts(same=head)], detached)
    assert (finding.file, finding.line) == ("model.py", 20)
    frozen = PullDiff({"model.py": lines}, (GradientEdit("model.py", 20, "requires_grad="),))
    (finding,) = judge([facts()], [facts(same=head)], frozen)
    assert (finding.file, finding.line) == ("model.py", 15)  # the class's first changed line


def test_a_variant_only_at_head_does_not_hide_the_findings_of_those_after_it() -> None:
    changed = same(outputs={"equal": False, "index": 0, "diff": 2.0, "scale": 4.0})
    base = [VariantFacts("flash", {}), VariantFacts("eager", {})]
    head = [VariantFacts("new", {}), VariantFacts("flash", {}, changed),
            VariantFacts("eager", {}, changed)]  # fmt: skip
    found = [(f.kind, f.message.split(":")[0]) for f in judge(base, head, DIFF)]
    assert found == [
        ("behaviour-variant-unpaired", "Variant `new` exists only at head"),
        ("behaviour-output-changed", "In variant `flash`"),
        ("behaviour-output-changed", "In variant `eager`"),
    ]


def test_an_invariant_random_at_both_does_not_hide_a_later_one_that_breaks() -> None:
    found = judge([facts(eval_random=RANDOM)], [facts(eval_random=RANDOM, eval_state=STATE)], DIFF)
    assert [(f.kind, f.severity) for f in found] == [("behaviour-eval-state", Severity.BLOCKING)]


def test_a_forward_that_raised_at_head_says_the_error() -> None:
    head = {"compared": False, "why": "raised", "error": "RuntimeError: shapes (2, 3)"}
    (finding,) = judge([facts()], [facts(same=head)], DIFF)
    assert "RuntimeError: shapes (2, 3)" in finding.message


def test_changed_outputs_name_the_module_and_outputs_not_measured_are_not_a_change() -> None:
    head = same(outputs={"equal": False, "index": 0, "diff": 2.0, "scale": 4.0}, first=FIRST)
    (finding,) = judge([facts()], [facts(same=head)], DIFF)
    assert "`blocks.0.attn` (`Attention`)" in finding.message
    loss = same(outputs={}, loss={"base": 1.5, "head": 9.0, "equal": False})
    (finding,) = judge([facts()], [facts(same=loss)], DIFF)
    assert finding.kind == "behaviour-loss-changed"


def test_a_probe_not_measured_is_no_change_and_the_next_one_decides() -> None:
    gradients = same(loss={}, gradients={"equal": False, "count": 1, "differ": [
        {"parameter": "blocks.0.attn.w", "diff": 0.1, "scale": 1.0}]})  # fmt: skip
    (finding,) = judge([facts()], [facts(same=gradients)], DIFF)
    assert finding.kind == "behaviour-gradient-changed"
    buffers = same(gradients={}, buffers=[{"name": "blocks.0.attn.n", "diff": 0.1, "scale": 1.0}])
    (finding,) = judge([facts()], [facts(same=buffers)], DIFF)
    assert finding.kind == "behaviour-training-changed"


def test_a_changed_loss_points_at_the_line_changed_in_the_loss() -> None:
    loss = same(loss={"base": 1.5, "head": 9.0, "equal": False})
    head = VariantFacts(
        None, facts().invariants, loss, {}, ClassSource("Loss", "train.py", 5, 1, 20)
    )
    diff = PullDiff({"train.py": (LineSpan(8, 8),)})
    (finding,) = judge([facts()], [head], diff)
    assert (finding.kind, finding.file, finding.line) == ("behaviour-loss-changed", "train.py", 8)


def test_the_rules_that_accepted_findings_are_listed_for_every_variant() -> None:
    changed = same(outputs={"equal": False, "index": 0, "diff": 2.0, "scale": 4.0}, first=FIRST)
    base = [VariantFacts("a", {}), VariantFacts("b", {})]
    head = [
        VariantFacts("a", {}, changed, {"blocks.0.attn": ATTENTION}),
        VariantFacts("b", {}, changed, {"blocks.0.attn": ATTENTION}),
    ]
    found, accepted = compare.judge(base, head, DIFF, [("blocks.*", "on purpose")])
    assert [f.severity for f in found] == [Severity.NOTE, Severity.NOTE]
    assert [rule.rule for rule in accepted] == ["allow: blocks.*", "allow: blocks.*"]


def test_training_that_ends_elsewhere_names_the_buffers_at_their_modules_line() -> None:
    buffers = [{"name": "blocks.0.attn.count", "diff": 1.0, "scale": 1.0}]
    (finding,) = judge([facts()], [facts(same=same(buffers=buffers))], DIFF)
    assert (finding.kind, finding.severity) == ("behaviour-training-changed", Severity.BLOCKING)
    assert (finding.file, finding.line) == ("model.py", 20)
    assert "two training steps end elsewhere: buffers `blocks.0.attn.count` differ" in (
        finding.message
    )
    after = {"equal": False, "index": 0, "diff": 2.0, "scale": 4.0}
    (finding,) = judge([facts()], [facts(same=same(after=after))], DIFF)
    assert finding.kind == "behaviour-training-changed"
    assert "end elsewhere: the eval outputs (" in finding.message
    assert (finding.file, finding.line) == (None, None)  # no buffer: no module to point at


def test_an_init_change_is_placed_at_its_modules_changed_line_and_can_be_allowed() -> None:
    init = [{"name": "blocks.0.attn.w", "base": [0.0, 0.02], "head": [0.0, 0.05]}]
    (finding,) = judge([facts()], [facts(same=same(init=init))], DIFF)
    assert (finding.kind, finding.file, finding.line) == ("behaviour-init-changed", "model.py", 20)
    (finding,) = judge([facts()], [facts(same=same(init=init))], DIFF, [("blocks.0.attn", "ok")])
    assert finding.severity is Severity.NOTE


def test_a_probe_after_training_not_measured_is_no_change() -> None:
    assert judge([facts()], [facts(same=same(after={}))], DIFF) == []


def test_a_changed_gradients_message_names_the_parameter_and_ends_with_the_hint() -> None:
    gradients = {"equal": False, "count": 1, "differ": [{"parameter": "blocks.0.attn.w",
                 "diff": 0.5, "scale": 1.0}]}  # fmt: skip
    (finding,) = judge([facts()], [facts(same=same(gradients=gradients))], DIFF)
    assert finding.message.startswith(
        "With base's weights and the same batch, the outputs and the loss agree but the "
        "gradients do not: `blocks.0.attn.w`, the first in backward order"
    )
    assert finding.message.endswith(f" {words.ALLOW_HINT}")
