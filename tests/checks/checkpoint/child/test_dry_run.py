"""The child-side dry run, in process: meta tensors into a meta model, and what it tells."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from gradgate.checks.checkpoint.child.describe import describe
from gradgate.checks.checkpoint.child.dry_run import dry_run
from gradgate.checks.checkpoint.child.load import NotAStateDict, load_file, select
from torch import nn


class Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wte = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.wte.weight
        self.norm = nn.LayerNorm(4)
        self.register_buffer("mask", torch.ones(3), persistent=False)


def meta(model: type[nn.Module]) -> nn.Module:
    with torch.device("meta"):
        return model()


def state_of(model: nn.Module) -> dict[str, torch.Tensor]:
    return {k: torch.empty_like(v, device="meta") for k, v in model.state_dict().items()}


def test_tied_weights_are_one_group_and_non_persistent_buffers_are_listed() -> None:
    info = describe(meta(Tied))
    assert info["tied"] == [["wte.weight", "head.weight"]]
    assert info["non_persistent"] == ["mask"]
    assert "mask" not in info["entries"]
    assert info["parameters"] == 10 * 4 + 4 + 4  # the tied weight counted once


def test_a_dry_run_leaves_the_model_as_it_was_ties_included() -> None:
    model = meta(Tied)
    state = state_of(model)
    state["wte.weight"] = torch.empty(10, 4, dtype=torch.bfloat16, device="meta")
    result = dry_run(model, state)
    assert result["dtypes"] == [["wte.weight", "bfloat16", "float32"]]
    assert model.head.weight is model.wte.weight  # restored after assign=True swapped it
    assert model.wte.weight.dtype == torch.float32
    assert dry_run(model, state)["dtypes"] == result["dtypes"]  # and it can run again


def test_shape_mismatches_come_back_with_both_shapes_and_missing_keys_still_counted() -> None:
    model = meta(Tied)
    state = state_of(model)
    state["norm.weight"] = torch.empty(5, device="meta")
    del state["norm.bias"]
    result = dry_run(model, state)
    assert result["shapes"] == [["norm.weight", [5], [4]]]
    assert result["missing"] == ["norm.bias"]
    assert result["errors"] == []


def test_a_load_hook_that_raises_is_an_error_not_a_crash() -> None:
    model = meta(Tied)

    def broken(*args: object) -> None:
        raise KeyError("rope.freqs")

    model.norm._register_load_state_dict_pre_hook(broken)
    result = dry_run(model, state_of(model))
    assert result["errors"] == ["KeyError: 'rope.freqs'"]


def test_a_nested_state_dict_is_found_under_its_key_or_a_known_one() -> None:
    state = {"w": torch.zeros(2)}
    assert select({"model": state, "epoch": 3}, None) == (state, "model")
    assert select({"ckpt": {"ema": state}}, "ckpt/ema") == (state, "ckpt/ema")
    with pytest.raises(NotAStateDict, match="top-level keys: `epoch`, `optimizer`"):
        select({"epoch": 3, "optimizer": {}}, None)
    with pytest.raises(NotAStateDict, match="no `weights`"):
        select({"model": state}, "weights")


def test_a_zip_file_is_mapped_and_tied_entries_stay_one_tensor(tmp_path: Path) -> None:
    real = Tied()
    path = tmp_path / "tied.pt"
    torch.save({"model": real.state_dict()}, path)
    state, where = load_file(str(path), zip_format=True, key=None)
    assert where == "model"
    assert state["wte.weight"] is state["head.weight"]
    assert all(t.device.type == "meta" for t in state.values())
    assert getattr(state, "_metadata", None) is not None  # BatchNorm's shim needs versions
