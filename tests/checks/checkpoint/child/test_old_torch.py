"""A torch older than 2.10 never loads a .pt reference; the finding says what to do instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from gradgate.checks.checkpoint.child import load, programs
from gradgate.checks.checkpoint.failures import reference_error
from torch import nn


def test_an_old_torch_is_refused_before_torch_load_is_called(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v1.pt"
    torch.save(nn.Linear(2, 2).state_dict(), path)
    monkeypatch.setattr(programs, "torch_version", lambda: (2, 4))

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("torch.load ran under a torch gradgate does not trust")

    monkeypatch.setattr(load.torch, "load", never)
    with torch.device("meta"):
        model = nn.Linear(2, 2)
    info = {"entries": {"weight": [[2, 2], "float32"], "bias": [[2], "float32"]}}
    ref = {"name": "v1.pt", "path": str(path), "zip": True, "key": None}
    answer = programs._reference(model, info, ref)
    assert answer["error"] == {"kind": "old-torch", "torch": torch.__version__}

    finding = reference_error(answer["error"] | {"torch": "2.4.1"}, label="`v1.pt`", file="v1.pt")
    assert "torch >= 2.10" in finding.message and "torch 2.4.1" in finding.message
    assert "convert the reference to safetensors" in finding.message


@pytest.mark.parametrize(
    ("version", "read"), [("2.10.0a0+git1234", (2, 10)), ("2.13.0+cpu", (2, 13)), ("2.4.1", (2, 4))]
)
def test_versions_with_local_suffixes_are_read(
    monkeypatch: pytest.MonkeyPatch, version: str, read: tuple[int, int]
) -> None:
    monkeypatch.setattr(load.torch, "__version__", version)
    assert load.torch_version() == read
