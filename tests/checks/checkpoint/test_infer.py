"""Rename inference: the fewest rules that explain the leftovers, never one that breaks a key."""

from __future__ import annotations

import re

from gradgate.checks.base import Severity
from gradgate.checks.checkpoint.blocks import fold_inference
from gradgate.checks.checkpoint.child.keys import migrate
from gradgate.checks.checkpoint.findings import findings_for
from gradgate.checks.checkpoint.infer import Inference, infer
from gradgate.checks.checkpoint.judge import Judgement
from gradgate.checks.checkpoint.tensors import TensorMeta


def t(*shape: int, dtype: str = "float32") -> TensorMeta:
    return TensorMeta(shape, dtype)


def run(checkpoint: dict[str, TensorMeta], model: dict[str, TensorMeta]) -> Inference:
    unexpected = set(checkpoint) - set(model)
    missing = set(model) - set(checkpoint)
    return infer(checkpoint, model, unexpected, missing)


def rules(inference: Inference) -> list[tuple[str, str]]:
    return [(r.pattern, r.replacement) for r in inference.renames]


def applies(inference: Inference, checkpoint: dict[str, TensorMeta]) -> set[str]:
    renamed, _, _ = migrate(list(checkpoint), rules(inference))
    return set(renamed)


SHARED = {"embed.weight": t(16, 8), "embed.bias": t(16)}


def test_a_renamed_module_is_one_prefix_rule() -> None:
    checkpoint = {**SHARED, "fc.weight": t(4, 16), "fc.bias": t(4)}
    model = {**SHARED, "classifier.weight": t(4, 16), "classifier.bias": t(4)}
    found = run(checkpoint, model)
    assert rules(found) == [(r"^fc\.", "classifier.")]
    assert applies(found, checkpoint) == set(model)
    assert found.missing == found.unexpected == ()


def test_a_wrapped_submodule_is_one_rule_however_many_keys() -> None:
    layers = {f"encoder.layers.{i}.{p}": t(8, 8) for i in range(12) for p in ("w", "v")}
    checkpoint = {**layers, "head.weight": t(2, 8)}
    model = {f"model.{k}": v for k, v in layers.items()} | {"head.weight": t(2, 8)}
    found = run(checkpoint, model)
    assert rules(found) == [(r"^encoder\.", "model.encoder.")]
    assert applies(found, checkpoint) == set(model)


def test_everything_under_a_new_root_is_one_rule_adding_a_prefix() -> None:
    checkpoint = {"a.w": t(3), "b.w": t(4)}
    model = {"backbone.a.w": t(3), "backbone.b.w": t(4)}
    found = run(checkpoint, model)
    assert rules(found) == [("^", "backbone.")]
    assert applies(found, checkpoint) == set(model)


def test_a_rule_that_would_rename_a_key_that_loads_is_not_proposed() -> None:
    # `fc.extra` loads as it is, so `^fc\.` -> `classifier.` would break it: only the
    # narrower module-level rules are safe.
    checkpoint = {"fc.a.weight": t(4), "fc.extra": t(1)}
    model = {"classifier.a.weight": t(4), "fc.extra": t(1)}
    found = run(checkpoint, model)
    assert rules(found) == [(r"^fc\.a\.", "classifier.a.")]
    assert applies(found, checkpoint) == set(model)


def test_shapes_tell_renamed_modules_apart() -> None:
    checkpoint = {"old_a.weight": t(4, 4), "old_b.weight": t(8, 4)}
    model = {"new_b.weight": t(8, 4), "new_a.weight": t(4, 4)}
    found = run(checkpoint, model)
    assert sorted(rules(found)) == [(r"^old_a\.", "new_a."), (r"^old_b\.", "new_b.")]


def test_two_equally_good_targets_are_named_as_ambiguous() -> None:
    checkpoint = {"fc.weight": t(4, 16)}
    model = {"aux.weight": t(4, 16), "classifier.weight": t(4, 16)}
    (rename,) = run(checkpoint, model).renames
    assert rename.alternatives  # one picked, the other named
    assert {rename.replacement, *(a + "." for a in rename.alternatives)} == {
        "aux.",
        "classifier.",
    }


def test_gamma_and_beta_are_legacy_names_for_weight_and_bias() -> None:
    checkpoint = {"norm.gamma": t(16), "norm.beta": t(16), "blocks.0.ln.gamma": t(16)}
    model = {"norm.weight": t(16), "norm.bias": t(16), "blocks.0.ln.weight": t(16)}
    found = run(checkpoint, model)
    assert all(r.legacy for r in found.renames)
    assert rules(found) == [(r"(^|\.)gamma$", r"\g<1>weight"), (r"(^|\.)beta$", r"\g<1>bias")]
    assert applies(found, checkpoint) == set(model)


def test_old_weight_norm_names_map_to_parametrizations() -> None:
    checkpoint = {"conv.weight_g": t(8, 1, 1), "conv.weight_v": t(8, 4, 3), "conv.bias": t(8)}
    model = {
        "conv.parametrizations.weight.original0": t(8, 1, 1),
        "conv.parametrizations.weight.original1": t(8, 4, 3),
        "conv.bias": t(8),
    }
    found = run(checkpoint, model)
    assert applies(found, checkpoint) == set(model)
    assert all(re.compile(p) for p, _ in rules(found))


def test_a_fused_qkv_split_into_q_k_v_needs_a_conversion_not_a_rename() -> None:
    checkpoint = {"attn.qkv.weight": t(96, 32), "attn.qkv.bias": t(96)}
    model = {f"attn.{n}.{p}": t(32, 32) if p == "weight" else t(32) for n in "qkv" for p in
             ("weight", "bias")}  # fmt: skip
    found = run(checkpoint, model)
    assert found.renames == ()
    weight = next(c for c in found.conversions if c.fused == "attn.qkv.weight")
    assert weight.kind == "split"
    assert weight.parts == ("attn.q.weight", "attn.k.weight", "attn.v.weight")
    assert found.missing == found.unexpected == ()


def test_q_k_v_fused_into_one_is_the_reverse_conversion() -> None:
    checkpoint = {"attn.q_proj.weight": t(8, 8), "attn.k_proj.weight": t(8, 8),
                  "attn.v_proj.weight": t(8, 8)}  # fmt: skip
    model = {"attn.qkv_proj.weight": t(24, 8)}
    (conversion,) = run(checkpoint, model).conversions
    assert conversion.kind == "fuse"
    assert conversion.parts == ("attn.q_proj.weight", "attn.k_proj.weight", "attn.v_proj.weight")


def test_rows_that_do_not_add_up_are_no_conversion() -> None:
    checkpoint = {"attn.qkv.weight": t(90, 32)}
    model = {f"attn.{n}.weight": t(32, 32) for n in "qkv"}
    found = run(checkpoint, model)
    assert found.conversions == ()
    assert set(found.missing) == set(model) and found.unexpected == ("attn.qkv.weight",)


def test_a_key_nothing_explains_stays_missing() -> None:
    found = run({**SHARED}, {**SHARED, "new_head.weight": t(3, 3)})
    assert found.missing == ("new_head.weight",) and found.renames == ()


def test_new_weight_norm_names_map_back_to_the_old_ones() -> None:
    checkpoint = {
        "conv.parametrizations.weight.original0": t(8, 1, 1),
        "conv.parametrizations.weight.original1": t(8, 4, 3),
    }
    model = {"conv.weight_g": t(8, 1, 1), "conv.weight_v": t(8, 4, 3)}
    found = run(checkpoint, model)
    assert rules(found) == [
        (r"(^|\.)parametrizations\.weight\.original0$", r"\g<1>weight_g"),
        (r"(^|\.)parametrizations\.weight\.original1$", r"\g<1>weight_v"),
    ]
    assert applies(found, checkpoint) == set(model)


def said(checkpoint: dict[str, TensorMeta], model: dict[str, TensorMeta]) -> list[str]:
    """The rename findings' messages, as the report words them."""
    unexpected = tuple(k for k in checkpoint if k not in model)
    missing = tuple(k for k in model if k not in checkpoint)
    inference = fold_inference(infer(checkpoint, model, set(unexpected), set(missing)), checkpoint)
    judgement = Judgement(missing, unexpected, {}, {}, (), inference=inference)
    found, _ = findings_for(
        judgement, label="`ckpt.pt`", file="ckpt.pt", rules=(), verified=None,
        dtype_severity=Severity.WARNING,
    )  # fmt: skip
    return [f.message.split(":", 1)[0] for f in found]


def test_a_legacy_rename_is_an_old_name_and_a_prefix_rename_names_both_modules() -> None:
    checkpoint = {"norm.gamma": t(16), "norm.beta": t(16), "fc.weight": t(4, 16)}
    model = {"norm.weight": t(16), "norm.bias": t(16), "classifier.weight": t(4, 16)}
    assert said(checkpoint, model) == [
        "`norm.gamma` in `ckpt.pt` is an old name for `norm.weight`",
        "`norm.beta` in `ckpt.pt` is an old name for `norm.bias`",
        "`fc.*` in `ckpt.pt` is now `classifier.*`",
    ]


def test_a_legacy_rename_is_not_proposed_when_it_would_move_a_key_that_loads() -> None:
    # `a.gamma` loads as it is: `gamma` -> `weight` everywhere would break it
    checkpoint = {"a.gamma": t(4), "b.gamma": t(4)}
    model = {"a.gamma": t(4), "a.weight": t(4), "b.weight": t(4)}
    found = run(checkpoint, model)
    assert found.renames == ()
    assert found.unexpected == ("b.gamma",)


def test_a_rename_is_found_past_a_leftover_pair_that_explains_nothing() -> None:
    # `a.w` has no counterpart (`z.q.w` is another tensor): the pairs after it still count
    checkpoint = {"a.w": t(2), "b.v": t(3)}
    model = {"z.q.w": t(5), "y.b.v": t(3)}
    found = run(checkpoint, model)
    assert rules(found) == [(r"^b\.", "y.b.")]
    assert (found.unexpected, found.missing) == (("a.w",), ("z.q.w",))


def test_a_rename_inside_repeated_blocks_keeps_each_blocks_index() -> None:
    checkpoint = {"blocks.0.fc.w": t(4), "blocks.1.fc.w": t(4)}
    model = {"blocks.0.ffn.w": t(4), "blocks.1.ffn.w": t(4)}
    found = run(checkpoint, model)
    assert rules(found) == [
        (r"^blocks\.0\.fc\.", "blocks.0.ffn."),
        (r"^blocks\.1\.fc\.", "blocks.1.ffn."),
    ]
    assert all(r.alternatives == () for r in found.renames)


def test_a_block_keeps_its_index_even_where_another_blocks_name_sorts_first() -> None:
    checkpoint = {"blocks.1.fc.w": t(4)}
    model = {"blocks.0.ffn.w": t(4), "blocks.1.ffn.w": t(4)}
    (rename,) = run(checkpoint, model).renames
    assert (rename.old, rename.new, rename.alternatives) == ("blocks.1.fc", "blocks.1.ffn", ())


def test_rules_that_explain_as_many_keys_come_shallowest_first_then_by_name() -> None:
    # `a.keep` loads, so nothing wider than `a.c` can move those keys
    checkpoint = {"a.c.w": t(2), "a.c.v": t(3), "b.w": t(4), "b.v": t(5), "a.keep": t(1)}
    checkpoint |= {"d.w": t(6), "d.v": t(7)}
    model = {"p.w": t(2), "p.v": t(3), "z.w": t(4), "z.v": t(5), "a.keep": t(1)}
    model |= {"y.w": t(6), "y.v": t(7)}
    found = run(checkpoint, model)
    assert [(r.old, r.new) for r in found.renames] == [("b", "z"), ("d", "y"), ("a.c", "p")]


def test_of_targets_that_fit_as_well_the_first_by_name_is_proposed() -> None:
    (rename,) = run({"fc.w": t(2)}, {"a.b.w": t(2), "a.w": t(2)}).renames
    assert (rename.new, rename.alternatives) == ("a", ("a.b",))


def test_a_wrapper_prefix_dropped_is_one_rule_to_the_root() -> None:
    checkpoint = {"wrap.a.w": t(2), "wrap.b.w": t(3)}
    model = {"a.w": t(2), "b.w": t(3)}
    found = run(checkpoint, model)
    assert rules(found) == [(r"^wrap\.", "")]
    assert applies(found, checkpoint) == set(model)


def test_a_tensor_split_in_two_is_a_conversion() -> None:
    checkpoint = {"mlp.gate_up.weight": t(64, 16)}
    model = {"mlp.gate.weight": t(32, 16), "mlp.up.weight": t(32, 16)}
    (conversion,) = run(checkpoint, model).conversions
    assert (conversion.kind, conversion.parts) == ("split", ("mlp.gate.weight", "mlp.up.weight"))


def test_parts_come_from_the_fused_tensors_own_module_only() -> None:
    checkpoint = {"attn.qkv.weight": t(96, 32)}
    model = {f"attn.{n}.weight": t(32, 32) for n in "qkv"} | {"mlp.fc.weight": t(32, 32)}
    found = run(checkpoint, model)
    (conversion,) = found.conversions
    assert conversion.parts == ("attn.q.weight", "attn.k.weight", "attn.v.weight")
    assert found.missing == ("mlp.fc.weight",)


def test_parts_one_fused_tensor_took_are_not_offered_to_another() -> None:
    checkpoint = {"attn.kqv.weight": t(96, 32), "attn.qkv.weight": t(96, 32)}
    model = {f"attn.{n}.weight": t(32, 32) for n in "qkv"}
    found = run(checkpoint, model)
    (conversion,) = found.conversions
    assert conversion.fused == "attn.kqv.weight"
    assert found.unexpected == ("attn.qkv.weight",)


def test_parts_stay_taken_while_other_fused_tensors_take_theirs() -> None:
    checkpoint = {"attn.a_qkv.weight": t(96, 32), "attn.b_xy.weight": t(32, 8)}
    checkpoint["attn.c_qkv.weight"] = t(96, 32)
    model = {f"attn.{n}.weight": t(32, 32) for n in "qkv"}
    model |= {"attn.x.weight": t(16, 8), "attn.y.weight": t(16, 8)}
    found = run(checkpoint, model)
    assert [c.fused for c in found.conversions] == ["attn.a_qkv.weight", "attn.b_xy.weight"]
    assert found.unexpected == ("attn.c_qkv.weight",)


def test_scalars_are_never_fused_or_split() -> None:
    checkpoint = {"attn.qk.scale": t()}
    model = {"attn.q.scale": t(4), "attn.k.scale": t(4)}
    found = run(checkpoint, model)
    assert found.conversions == ()
    assert (found.unexpected, found.missing) == (
        ("attn.qk.scale",),
        ("attn.q.scale", "attn.k.scale"),
    )
