"""torch.save files are checked by their pickle's opcodes: objects are found, nothing runs (C10)."""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from gradgate.checks.checkpoint.read.pickles import PickleScan
from gradgate.checks.checkpoint.read.torchfile import scan_legacy, scan_zip
from gradgate.checks.errors import UnreadableCheckpoint
from torch import nn


@dataclasses.dataclass
class TrainConfig:
    lr: float = 3e-4
    layers: int = 2


class RunsCode:
    """Pickles to a call of os.system: what a malicious checkpoint does."""

    def __init__(self, sentinel: Path) -> None:
        self.sentinel = sentinel

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str]]:
        return os.system, (f"touch {self.sentinel}",)


class Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wte = nn.Embedding(11, 4)
        self.norm = nn.BatchNorm1d(4)
        self.head = nn.Linear(4, 11, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.wte(x)))


FORMATS = {
    "zip": (scan_zip, {}),
    "legacy": (scan_legacy, {"_use_new_zipfile_serialization": False}),
}


def save_and_scan(obj: Any, path: Path, fmt: str) -> PickleScan:
    scan, options = FORMATS[fmt]
    torch.save(obj, path, **options)
    return scan(path)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_plain_training_checkpoint_holds_no_objects(tmp_path: Path, fmt: str) -> None:
    model = Tied().to(torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters())
    model(torch.zeros(3, dtype=torch.long)).sum().backward()
    optimizer.step()
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": 3,
        "args": {"lr": 1e-3, "name": "run", "betas": (0.9, 0.99), "flags": None},
    }
    found = save_and_scan(checkpoint, tmp_path / "ckpt.pt", fmt)
    assert found.foreign == ()
    assert found.top_keys == ("model", "optimizer", "epoch", "args")


@pytest.mark.parametrize("fmt", FORMATS)
def test_namespace_dataclass_and_numpy_scalars_are_found_where_they_sit(
    tmp_path: Path, fmt: str
) -> None:
    checkpoint = {
        "model": nn.Linear(2, 2).state_dict(),
        "args": argparse.Namespace(lr=0.1, epochs=3),
        "config": {"train": TrainConfig()},
        "best_acc": np.float64(0.91),
        "step": np.int64(1200),
    }
    found = save_and_scan(checkpoint, tmp_path / "ckpt.pt", fmt)
    by_path = {f.path: f.globals for f in found.foreign}
    assert by_path["args"] == ("argparse.Namespace",)
    assert by_path["config/train"] == (f"{__name__}.TrainConfig",)
    assert any("numpy" in g and g.endswith("scalar") for g in by_path["best_acc"])
    assert any("numpy" in g for g in by_path["step"])
    assert "model" not in by_path
    assert not any(f.executes_code for f in found.foreign)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_pickle_that_would_run_a_command_is_named_and_never_run(tmp_path: Path, fmt: str) -> None:
    sentinel = tmp_path / "it-ran"
    found = save_and_scan(
        {"model": nn.Linear(2, 2).state_dict(), "extra": RunsCode(sentinel)},
        tmp_path / "evil.pt",
        fmt,
    )
    assert not sentinel.exists()
    (evil,) = found.foreign
    assert evil.path == "extra"
    assert evil.globals in (("posix.system",), ("os.system",))
    assert evil.executes_code


def test_a_whole_pickled_module_is_an_object_at_the_top_level(tmp_path: Path) -> None:
    found = save_and_scan(nn.Linear(2, 2), tmp_path / "model.pt", "zip")
    (top,) = found.foreign
    assert top.path == ""
    assert "torch.nn.modules.linear.Linear" in top.globals
    assert found.top_keys is None


def test_a_cut_short_pickle_is_unreadable_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "legacy.pt"
    torch.save(nn.Linear(8, 8).state_dict(), path, _use_new_zipfile_serialization=False)
    data = path.read_bytes()
    path.write_bytes(data[:60])  # inside the object pickle
    with pytest.raises(UnreadableCheckpoint) as caught:
        scan_legacy(path)
    assert caught.value.reason in ("pickle", "truncated")


def test_a_legacy_file_whose_storages_are_cut_short_is_caught_without_reading_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "legacy.pt"
    torch.save(nn.Linear(64, 64).state_dict(), path, _use_new_zipfile_serialization=False)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(UnreadableCheckpoint, match="cut short") as caught:
        scan_legacy(path)
    assert caught.value.reason == "truncated"


def test_a_zip_file_without_its_directory_is_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    torch.save(nn.Linear(64, 64).state_dict(), path)
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(UnreadableCheckpoint, match="cut short") as caught:
        scan_zip(path)
    assert caught.value.reason == "truncated"
