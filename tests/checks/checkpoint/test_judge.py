"""The judge on its own (pure): how each key the dry run reported is sorted, when a load breaks,
and what it says made a clean load pass. The scenarios run the same code through real children;
these pin each rule with the smallest inputs, in milliseconds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gradgate.checks.checkpoint.judge import (
    MIGRATED,
    Judgement,
    is_environmental,
    judge,
    migrated_entries,
)
from gradgate.checks.checkpoint.results import LoadRun, ModelInfo, Shim
from gradgate.checks.checkpoint.tensors import TensorMeta


def t(*shape: int) -> TensorMeta:
    return TensorMeta(shape, "float32")


def load(
    *,
    missing: Sequence[str] = (),
    unexpected: Sequence[str] = (),
    loaded: Sequence[str] = (),
    shapes: Mapping[str, tuple[tuple[int, ...], tuple[int, ...]]] | None = None,
    errors: Sequence[str] = (),
    conditions: Mapping[str, Mapping[str, Any]] | None = None,
    defined: Mapping[str, tuple[str, int]] | None = None,
) -> LoadRun:
    return LoadRun(
        missing=tuple(missing),
        unexpected=tuple(unexpected),
        shapes=dict(shapes or {}),
        dtypes={},
        loaded=tuple(loaded),
        errors=tuple(errors),
        conditions=dict(conditions or {}),
        defined=dict(defined or {}),
    )


def model_of(
    entries: Mapping[str, TensorMeta],
    *,
    tied: Sequence[Sequence[str]] = (),
    non_persistent: Sequence[str] = (),
    shims: Sequence[Shim] = (),
) -> ModelInfo:
    return ModelInfo(
        entries=dict(entries),
        kinds={k: "parameter" for k in entries},
        tied=tuple(tuple(g) for g in tied),
        non_persistent=tuple(non_persistent),
        versions={},
        parameters=len(entries),
        shims=tuple(shims),
    )


def judged(
    entries: Mapping[str, TensorMeta],
    model: ModelInfo,
    saved: LoadRun,
    *,
    shared: Sequence[Sequence[str]] | None = (),
    migrated: LoadRun | None = None,
    used: Mapping[str, Mapping[int, Sequence[str]]] | None = None,
    rules: Sequence[tuple[str, str | None]] = (),
    base_keys: frozenset[str] | None = None,
) -> Judgement:
    # "saved" as the child names the dry run of the file as it is (child/programs.py)
    runs = {"saved": saved} if migrated is None else {"saved": saved, MIGRATED: migrated}
    return judge(entries, shared, model, runs, used or {}, rules, base_keys=base_keys)


CUDA = {"condition": "torch.cuda.is_available()", "file": "model.py", "line": 7}
CONFIG = {"condition": "config.use_bias", "file": "model.py", "line": 9}
HOOK = Shim("Net._load_from_state_dict", "", "model.py", 12)


def test_words_about_the_machine_make_a_condition_environmental_in_any_case() -> None:
    assert is_environmental("torch.cuda.is_available()")
    assert is_environmental("HAS_FLASH and x")
    assert is_environmental("except ImportError")
    assert is_environmental("self.device == 'cuda'")
    assert is_environmental("except AttributeError")
    assert is_environmental("sys.platform == 'darwin'")
    assert not is_environmental("config.use_bias")
    assert not is_environmental("self.n_layers > 2")


def test_a_missing_key_whose_tied_twin_loaded_is_not_missing() -> None:
    entries = {"embed.weight": t(4, 2)}
    model = model_of(
        {"embed.weight": t(4, 2), "head.weight": t(4, 2)}, tied=[("embed.weight", "head.weight")]
    )
    got = judged(entries, model, load(missing=["head.weight"], loaded=["embed.weight"]))
    assert got.missing == ()
    assert not got.breaks


def test_every_missing_key_is_sorted_after_one_a_tied_twin_explains() -> None:
    model = model_of(
        {"embed.weight": t(4, 2), "head.weight": t(4, 2), "norm.weight": t(2)},
        tied=[("embed.weight", "head.weight")],
    )
    run = load(missing=["head.weight", "norm.weight"], loaded=["embed.weight"])
    got = judged({"embed.weight": t(4, 2)}, model, run)
    assert got.missing == ("norm.weight",)


def test_a_missing_key_whose_twin_did_not_load_either_is_missing() -> None:
    model = model_of(
        {"embed.weight": t(4, 2), "head.weight": t(4, 2)}, tied=[("embed.weight", "head.weight")]
    )
    got = judged({}, model, load(missing=["head.weight", "embed.weight"]))
    assert got.missing == ("head.weight", "embed.weight")
    assert got.breaks


def test_a_missing_key_under_a_machine_condition_depends_on_the_machine() -> None:
    model = model_of({"a.weight": t(2), "fast.weight": t(2)})
    run = load(missing=["fast.weight"], loaded=["a.weight"], conditions={"fast.weight": CUDA})
    both = frozenset({"a.weight", "fast.weight"})
    got = judged({"a.weight": t(2)}, model, run, base_keys=both)
    assert got.missing == ()
    assert dict(got.environmental) == {"fast.weight": {**CUDA, "head": True}}
    # the base model, built here, had the key as well: the PR did not change it here
    assert got.environment_breaks == ()
    assert not got.breaks


def test_a_missing_key_under_a_config_condition_is_missing() -> None:
    model = model_of({"a.weight": t(2), "bias": t(2)})
    run = load(missing=["bias"], loaded=["a.weight"], conditions={"bias": CONFIG})
    got = judged({"a.weight": t(2)}, model, run)
    assert got.missing == ("bias",)
    assert dict(got.environmental) == {}
    assert got.breaks


def test_an_environmental_key_the_pr_changed_here_breaks() -> None:
    # head registers the key where the check ran, base did not: the PR made it differ
    model = model_of({"a.weight": t(2), "fast.weight": t(2)})
    run = load(missing=["fast.weight"], loaded=["a.weight"], conditions={"fast.weight": CUDA})
    got = judged({"a.weight": t(2)}, model, run, base_keys=frozenset({"a.weight"}))
    assert got.environment_breaks == ("fast.weight",)
    assert got.breaks
    # the other way: base registered it here, head no longer does
    gone = load(unexpected=["fast.weight"], loaded=["a.weight"], conditions={"fast.weight": CUDA})
    entries = {"a.weight": t(2), "fast.weight": t(2)}
    head = model_of({"a.weight": t(2)})
    got = judged(entries, head, gone, base_keys=frozenset({"a.weight", "fast.weight"}))
    assert dict(got.environmental) == {"fast.weight": {**CUDA, "head": False}}
    assert got.unexpected == ()
    assert got.environment_breaks == ("fast.weight",)
    # neither registers it here: the checkpoint was saved elsewhere, nothing the PR did
    got = judged(entries, head, gone, base_keys=frozenset({"a.weight"}))
    assert got.environment_breaks == ()
    assert not got.breaks


def test_an_environmental_key_breaks_when_base_was_not_built() -> None:
    model = model_of({"a.weight": t(2), "fast.weight": t(2)})
    run = load(missing=["fast.weight"], loaded=["a.weight"], conditions={"fast.weight": CUDA})
    got = judged({"a.weight": t(2)}, model, run, base_keys=None)
    assert got.environment_breaks == ("fast.weight",)
    assert got.breaks


def test_a_left_over_non_persistent_buffer_is_a_warning_not_a_break() -> None:
    model = model_of({"a.weight": t(2)}, non_persistent=["mask"])
    entries = {"a.weight": t(2), "mask": t(2)}
    got = judged(entries, model, load(unexpected=["mask"], loaded=["a.weight"]))
    assert got.non_persistent == ("mask",)
    assert got.unexpected == ()
    assert not got.breaks


def test_a_left_over_key_under_a_config_condition_is_unexpected() -> None:
    model = model_of({"a.weight": t(2)})
    entries = {"a.weight": t(2), "old": t(2)}
    run = load(unexpected=["old"], loaded=["a.weight"], conditions={"old": CONFIG})
    got = judged(entries, model, run)
    assert got.unexpected == ("old",)
    assert got.non_persistent == ()
    assert dict(got.environmental) == {}
    assert got.breaks


def test_each_kind_of_failure_breaks_and_a_clean_load_does_not() -> None:
    model = model_of({"a": t(2)})
    entries = {"a": t(2)}
    assert not judged(entries, model, load(loaded=["a"])).breaks
    shapes = {"a": ((3,), (2,))}
    got = judged(entries, model, load(loaded=["a"], shapes=shapes))
    assert got.breaks and dict(got.shapes) == shapes
    got = judged(entries, model, load(loaded=["a"], errors=["size mismatch"]))
    assert got.breaks and got.errors == ("size mismatch",)


def test_a_break_brings_the_inference_and_a_clean_load_does_not() -> None:
    model = model_of({"classifier.weight": t(4, 2), "classifier.bias": t(4)})
    entries = {"fc.weight": t(4, 2), "fc.bias": t(4)}
    run = load(
        missing=["classifier.weight", "classifier.bias"], unexpected=["fc.weight", "fc.bias"]
    )
    got = judged(entries, model, run)
    assert got.inference is not None
    assert [(r.pattern, r.replacement) for r in got.inference.renames] == [
        (r"^fc\.", "classifier.")
    ]
    assert got.passed_by == () and got.shims == ()
    clean = judged(dict(model.entries), model, load(loaded=list(model.entries)))
    assert clean.inference is None


def test_the_inference_sees_only_the_keys_left_over_as_regressions() -> None:
    # a left-over buffer the model keeps out of its state dict is not offered to a rename
    model = model_of({"classifier.weight": t(4, 2), "mask": t(4, 2)}, non_persistent=["buf"])
    entries = {"fc.weight": t(4, 2), "buf": t(4, 2)}
    run = load(missing=["classifier.weight"], unexpected=["fc.weight", "buf"], loaded=["mask"])
    got = judged(entries, model, run)
    assert got.inference is not None
    assert got.inference.unexpected == ()
    assert [r.pairs for r in got.inference.renames] == [(("fc.weight", "classifier.weight"),)]


def test_the_where_of_each_key_comes_from_the_run_judged() -> None:
    model = model_of({"a": t(2)})
    run = load(missing=["a"], defined={"a": ("net.py", 3)})
    assert dict(judged({}, model, run).locations) == {"a": ("net.py", 3)}


def test_with_migrations_declared_the_migrated_run_and_keys_are_judged() -> None:
    model = model_of({"classifier.weight": t(4, 2)})
    entries = {"fc.weight": t(4, 2)}
    saved = load(missing=["classifier.weight"], unexpected=["fc.weight"])
    migrated = load(loaded=["classifier.weight"])
    rules = [(r"^fc\.", "classifier.")]
    used = {MIGRATED: {0: ["fc.weight"]}}
    got = judged(entries, model, saved, migrated=migrated, used=used, rules=rules)
    assert not got.breaks
    assert got.passed_by == ((r"^fc\.", "classifier.", 1),)
    # keys as migrated match the model's: the model's own hooks did nothing to explain
    hooked = model_of({"classifier.weight": t(4, 2)}, shims=[HOOK])
    got = judged(entries, hooked, saved, migrated=migrated, used=used, rules=rules)
    assert got.shims == ()
    # still broken after the migrations: the inference starts from the keys as migrated
    head = model_of({"classifier.weight": t(4, 2), "out.weight": t(2, 2)})
    entries = {"fc.weight": t(4, 2), "proj.weight": t(2, 2)}
    still = load(missing=["out.weight"], unexpected=["proj.weight"], loaded=["classifier.weight"])
    got = judged(entries, head, saved, migrated=still, used=used, rules=rules)
    assert got.missing == ("out.weight",) and got.unexpected == ("proj.weight",)
    assert got.inference is not None
    assert [r.pairs for r in got.inference.renames] == [(("proj.weight", "out.weight"),)]


def test_passed_by_names_only_rules_that_moved_keys_in_order() -> None:
    model = model_of({"x.weight": t(2), "y.weight": t(2)})
    entries = {"a.weight": t(2), "b.weight": t(2)}
    saved = load(missing=list(model.entries), unexpected=list(entries))
    migrated = load(loaded=list(model.entries))
    rules = [(r"^b\.", "y."), (r"^z\.", None), (r"^a\.", "x.")]
    # 3: no such rule (the child counts only the rules it was sent), never a crash
    used = {MIGRATED: {2: ["a.weight"], 1: [], 0: ["b.weight"], 3: ["c"]}}
    got = judged(entries, model, saved, migrated=migrated, used=used, rules=rules)
    assert got.passed_by == ((r"^b\.", "y.", 1), (r"^a\.", "x.", 1))


def test_a_load_that_passed_without_the_migrations_was_not_passed_by_them() -> None:
    model = model_of({"a": t(2)})
    got = judged(
        {"a": t(2)},
        model,
        load(loaded=["a"]),
        migrated=load(loaded=["a"]),
        used={MIGRATED: {0: ["a"]}},
        rules=[("^a$", "a")],
    )
    assert got.passed_by == ()


def test_a_clean_load_of_keys_unlike_the_models_credits_the_models_hooks() -> None:
    model = model_of({"weight": t(2)}, shims=[HOOK])
    got = judged({"gamma": t(2)}, model, load(loaded=["weight"]))
    assert got.shims == (HOOK,)
    assert not got.breaks


def test_a_clean_load_missing_a_model_key_credits_the_hooks() -> None:
    model = model_of({"weight": t(2), "bias": t(2)}, shims=[HOOK])
    got = judged({"weight": t(2)}, model, load(loaded=["weight", "bias"]))
    assert got.shims == (HOOK,)


def test_no_hooks_are_credited_when_the_keys_match_or_a_tied_twin_stands_in() -> None:
    model = model_of({"weight": t(2)}, shims=[HOOK])
    assert judged({"weight": t(2)}, model, load(loaded=["weight"])).shims == ()
    tied = model_of(
        {"embed.weight": t(2), "head.weight": t(2)},
        tied=[("embed.weight", "head.weight")],
        shims=[HOOK],
    )
    got = judged({"embed.weight": t(2)}, tied, load(loaded=["embed.weight", "head.weight"]))
    assert got.shims == ()


def test_keys_unlike_the_models_without_hooks_credit_nothing() -> None:
    model = model_of({"weight": t(2)})
    assert judged({"gamma": t(2)}, model, load(loaded=["weight"])).shims == ()


def test_keys_the_model_ties_but_the_checkpoint_stores_apart_are_newly_tied() -> None:
    model = model_of(
        {"embed.weight": t(4, 2), "head.weight": t(4, 2), "x": t(1)},
        tied=[("embed.weight", "head.weight"), ("x", "y")],
    )
    entries = {"embed.weight": t(4, 2), "head.weight": t(4, 2), "x": t(1)}
    run = load(loaded=list(entries))
    got = judged(entries, model, run, shared=[])
    assert got.newly_tied == (("embed.weight", "head.weight"),)
    assert got.breaks
    # stored as one tensor (one storage) in the checkpoint: tied on both sides
    assert judged(entries, model, run, shared=[["head.weight", "embed.weight"]]).newly_tied == ()
    # a legacy file read to meta: storages unknown, nothing said
    assert judged(entries, model, run, shared=None).newly_tied == ()


def test_migrated_entries_carry_each_tensor_under_its_new_name() -> None:
    entries = {"fc.weight": t(4, 2), "drop.me": t(1), "keep": t(3)}
    got = migrated_entries(entries, [(r"^fc\.", "head."), (r"^drop\.", None)])
    assert got == {"head.weight": t(4, 2), "keep": t(3)}


def test_a_judgement_built_from_its_failures_alone_has_nothing_else_to_say() -> None:
    # the findings build one so in their own tests: every other part is empty, not absent
    judgement = Judgement(missing=(), unexpected=(), shapes={}, dtypes={}, errors=())
    assert not judgement.breaks
    assert judgement.non_persistent == () and judgement.environment_breaks == ()
    assert judgement.newly_tied == () and judgement.passed_by == () and judgement.shims == ()
    assert dict(judgement.environmental) == {} and dict(judgement.locations) == {}
    assert judgement.inference is None
