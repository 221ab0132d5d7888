"""The meta build's random ops: the tensors torch would make, without torch's Python kernels."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from gradgate.checks.checkpoint.child import meta
from gradgate.checks.checkpoint.child.meta import NoValuesOnMeta, build_ahead
from gradgate.checks.sandbox.child import Target
from torch import nn

MADE: dict[str, Callable[[], torch.Tensor]] = {
    "randn batch": lambda: torch.randn(4, 32),
    "randn with a dtype": lambda: torch.randn(2, 3, dtype=torch.float16),
    "randn of a tuple, requiring grad": lambda: torch.randn((2, 3), requires_grad=True),
    "rand": lambda: torch.rand(5),
    "randint(high, size)": lambda: torch.randint(5, (4,)),
    "randint with size and dtype by name": lambda: torch.randint(
        0, 5, size=(4, 2), dtype=torch.int32
    ),
    "rand on the CPU on purpose": lambda: torch.rand(2, device="cpu"),
    "an embedding's weight": lambda: nn.Embedding(10, 4).weight,
    "normal_ with a generator": lambda: torch.empty(3).normal_(0, 1, generator=None),
    "bernoulli_": lambda: torch.empty(3).bernoulli_(0.5),
}


def _looks(tensor: torch.Tensor) -> tuple[object, ...]:
    return tuple(tensor.shape), tensor.dtype, tensor.device.type, tensor.requires_grad


@pytest.mark.parametrize("make", MADE.values(), ids=list(MADE))
def test_random_ops_on_meta_give_the_tensor_torch_would(make: Callable[[], torch.Tensor]) -> None:
    with torch.device("meta"):
        expected = _looks(make())
    with torch.device("meta"), NoValuesOnMeta():
        assert _looks(make()) == expected


def test_a_negative_std_is_still_refused() -> None:
    with torch.device("meta"), NoValuesOnMeta(), pytest.raises(RuntimeError):
        torch.empty(3).normal_(0.0, -1.0)


BUILD = """\
import sys
import torch
from torch import nn
from gradgate.checks.checkpoint.child import meta
from gradgate.checks.checkpoint.child.meta import NoValuesOnMeta, build_ahead
from gradgate.checks.sandbox.child import Target
with torch.device("meta"), NoValuesOnMeta():
    model = nn.Sequential(nn.Embedding(10, 8), nn.Linear(8, 8), nn.LayerNorm(8))
    batch = torch.randn(4, 8), torch.randint(0, 10, (4, 3))
print("sympy" in sys.modules, "torch._dynamo" in sys.modules)
"""


def test_a_factory_with_an_embedding_and_a_random_batch_builds_without_sympy() -> None:
    # A fresh interpreter: this one may have imported them already. Without NoValuesOnMeta
    # the randn imports sympy and the embedding's init torch._dynamo, seconds per child.
    done = subprocess.run(
        [sys.executable, "-c", BUILD], capture_output=True, text=True, check=True, timeout=300
    )
    assert done.stdout.split() == ["False", "False"]


FACTORY = """\
import torch
from torch import nn

def build():
    return nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 2)), torch.randint(0, 10, (3,))
"""


def _request(root: Path) -> dict[str, Any]:
    (root / "factory.py").write_text(FACTORY, encoding="utf-8")
    model = {"build": None, "inputs": None, "extra_path": []}
    return {"module": None, "path": str(root / "factory.py"), "attr": "build",
            "root": str(root), "seed": 1, "device": "cpu", "kwargs": {"model": model}}  # fmt: skip


def test_the_model_built_ahead_serves_the_next_build_of_the_same_revision_once(
    tmp_path: Path,
) -> None:
    request = _request(tmp_path)
    build_ahead(request, Target(request))
    built_ahead = meta._AHEAD["models"][1]
    first = meta.build_meta(request, Target(request), torch.device("cpu"))
    second = meta.build_meta(request, Target(request), torch.device("cpu"))
    assert first == (built_ahead, None)
    assert second[0] is not built_ahead and second[1] is None  # used once
    [(variant, model)] = built_ahead
    assert variant is None and next(model.parameters()).is_meta


def test_a_model_built_ahead_for_another_tree_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    other, request = _request(tmp_path / "a"), _request(tmp_path / "b")
    build_ahead(other, Target(other))
    built_ahead = meta._AHEAD["models"][1]
    built, _ = meta.build_meta(request, Target(request), torch.device("cpu"))
    assert built[0][1] is not built_ahead[0][1]
