"""checks.model.plan.compare: what a change does to the model, from each revision's facts (pure).

The facts are what the child sends (``checks.model.plan.child``): a tiny encoder/head model,
as JSON, changed the way PRs change models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from gradgate.checks.model.plan.compare import (
    Count,
    KeyChange,
    ModelFacts,
    Renamed,
    TreeLine,
    as_json,
    plan_for,
    plan_from_json,
)


def facts(
    *,
    variant: str | None = None,
    modules: dict[str, tuple[str, dict[str, list[Any]]]] | None = None,
    flops: int | None = 1152,
    flops_error: str | None = None,
) -> ModelFacts:
    """A model of top-level modules: name -> (class, {leaf: [shape, dtype]})."""
    modules = modules or {
        "encoder": ("Linear", {"weight": [[16, 8], "float32"], "bias": [[16], "float32"]}),
        "head": ("Linear", {"weight": [[4, 16], "float32"], "bias": [[4], "float32"]}),
    }
    entries = {
        f"{m}.{leaf}": meta for m, (_, leaves) in modules.items() for leaf, meta in leaves.items()
    }
    parameters = {}
    for m, (_, leaves) in modules.items():
        count = 0
        for shape, _dtype in leaves.values():
            n = 1
            for d in shape:
                n *= d
            count += n
        parameters[m] = count
    return ModelFacts.from_json(
        {
            "variant": variant,
            "entries": entries,
            "modules": [["", "Net"], *([m, kind] for m, (kind, _) in modules.items())],
            "parameters": parameters,
            "flops": flops,
            "flops_error": flops_error,
        }
    )


BASE = facts()
HIDDEN = {"weight": [[16, 16], "float32"], "bias": [[16], "float32"]}
WITH_LAYER = facts(
    modules={
        "encoder": ("Linear", {"weight": [[16, 8], "float32"], "bias": [[16], "float32"]}),
        "hidden": ("Linear", HIDDEN),
        "head": ("Linear", {"weight": [[4, 16], "float32"], "bias": [[4], "float32"]}),
    },
    flops=2688,
)


def test_a_layer_added_shows_its_parameters_keys_tree_and_flops() -> None:
    (plan,) = plan_for([BASE], [WITH_LAYER]).variants
    assert plan.changed
    assert Count("hidden", None, 272) in plan.parameters
    assert Count("encoder", 144, 144) in plan.parameters
    assert plan.total == Count("total", 212, 484)
    assert plan.total.change == 272
    assert plan.flops == Count("forward", 1152, 2688)
    assert plan.added == ("hidden.weight", "hidden.bias")
    assert (plan.removed, plan.renamed, plan.reshaped, plan.dtypes) == ((), (), (), ())
    assert plan.tree == (TreeLine("", "Net", "Net"), TreeLine("hidden", None, "Linear"))
    assert [t.mark for t in plan.tree] == [" ", "+"]


def test_nothing_changed_is_said_so() -> None:
    plan = plan_for([BASE], [facts()])
    assert not plan.changed
    (variant,) = plan.variants
    assert variant.tree == () and variant.added == ()
    assert not any(c.changed for c in variant.parameters)


def test_a_renamed_module_is_one_rename_not_keys_added_and_removed() -> None:
    renamed = facts(
        modules={
            "encoder": ("Linear", {"weight": [[16, 8], "float32"], "bias": [[16], "float32"]}),
            "classifier": ("Linear", {"weight": [[4, 16], "float32"], "bias": [[4], "float32"]}),
        }
    )
    (plan,) = plan_for([BASE], [renamed]).variants
    assert plan.renamed == (Renamed("head", "classifier", 2),)
    assert (plan.added, plan.removed) == ((), ())
    assert plan.total == Count("total", 212, 212) and plan.changed
    assert [(t.path, t.mark) for t in plan.tree] == [("", " "), ("head", "-"), ("classifier", "+")]


def test_a_reshape_and_a_dtype_change_name_their_keys() -> None:
    changed = facts(
        modules={
            "encoder": ("Linear", {"weight": [[32, 8], "float32"], "bias": [[32], "float32"]}),
            "head": ("Linear", {"weight": [[4, 16], "bfloat16"], "bias": [[4], "float32"]}),
        }
    )
    (plan,) = plan_for([BASE], [changed]).variants
    assert plan.reshaped == (
        KeyChange("encoder.weight", "[16, 8]", "[32, 8]"),
        KeyChange("encoder.bias", "[16]", "[32]"),
    )
    assert plan.dtypes == (KeyChange("head.weight", "float32", "bfloat16"),)
    assert plan.tree == ()  # the same modules, of the same classes


def test_a_module_of_another_class_is_marked_changed_under_its_ancestors() -> None:
    base = ModelFacts(None, {}, (("", "Net"), ("blocks", "ModuleList"), ("blocks.0", "Block"),
                                 ("blocks.0.norm", "LayerNorm")), {})  # fmt: skip
    head = ModelFacts(None, {}, (("", "Net"), ("blocks", "ModuleList"), ("blocks.0", "Block"),
                                 ("blocks.0.norm", "RMSNorm")), {})  # fmt: skip
    (plan,) = plan_for([base], [head]).variants
    assert [(t.path, t.mark, t.depth) for t in plan.tree] == [
        ("", " ", 0),
        ("blocks", " ", 1),
        ("blocks.0", " ", 2),
        ("blocks.0.norm", "~", 3),
    ]


def test_variants_pair_by_name_and_one_only_at_head_is_all_new() -> None:
    plan = plan_for(
        [facts(variant="default")],
        [facts(variant="default"), facts(variant="flash", flops=None, flops_error="boom")],
    )
    assert [(v.variant, v.changed) for v in plan.variants] == [("default", False), ("flash", True)]
    flash = plan.variants[1]
    assert flash.total == Count("total", None, 212)
    assert flash.added == ("encoder.weight", "encoder.bias", "head.weight", "head.bias")
    assert flash.flops_errors == ("head: boom",)


def test_the_plan_travels_as_json_and_comes_back_equal() -> None:
    plan = plan_for([BASE, facts(variant="x")], [WITH_LAYER])
    data = as_json(plan)
    assert data["changed"] is True
    assert plan_from_json(data) == plan


@pytest.mark.parametrize(
    "broken",
    [
        {"variants": [{"variant": None}]},
        {"variants": "none"},
        {"variants": [], "problems": [{"revision": "head"}]},
    ],
)
def test_a_malformed_plan_in_json_is_a_clear_error(broken: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"^model_plan\."):
        plan_from_json(broken)


def blocks(attention: Callable[[int], str]) -> ModelFacts:
    modules = [("", "GPT"), ("wte", "Embedding"), ("h", "ModuleList")]
    for i in range(12):
        modules += [(f"h.{i}", "Block"), (f"h.{i}.attn", attention(i)), (f"h.{i}.mlp", "MLP")]
    return ModelFacts(None, {}, (*modules, ("lm_head", "Linear")), {})


def test_repeated_blocks_changed_alike_fold_into_one_line_each_run() -> None:
    base = blocks(lambda _: "Attention")
    head = blocks(lambda i: "Attention" if i == 5 else "FlashAttention")
    whole = plan_for([base], [head])
    (plan,) = whole.variants
    assert [(t.path, t.mark, t.count) for t in plan.tree] == [
        ("", " ", 1),
        ("h", " ", 1),
        ("h.0–4", " ", 5),
        ("h.0–4.attn", "~", 1),
        ("h.6–11", " ", 6),
        ("h.6–11.attn", "~", 1),
    ]
    assert plan_from_json(as_json(whole)) == whole  # the folds travel in the JSON
