"""Rename inference: the fewest rules that explain the leftovers, never one that breaks a key."""

from __future__ import annotations

import re

from gradgate.checks.checkpoint.child.keys import migrate
from gradgate.checks.checkpoint.infer import Inference, infer
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
