"""checks.model.device.device_for: the device the four model checks run on, chosen in one place.

Real sandbox children ask torch under the check's interpreter. On a machine without a GPU, the
CUDA answer comes from a user's interpreter whose torch reports a usable CUDA device: the real
interpreter, started by a one-line script that puts a ``sitecustomize`` saying so on its path
(the process sandbox, since bubblewrap shows the child only the interpreter's own folders).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from gradgate.checks.context import CheckContext
from gradgate.checks.model.device import Device, device_for
from gradgate.checks.model.settings import ModelCheckSettings

SETTINGS = ModelCheckSettings(timeout_s=60.0, memory_mb=2048)


def context(python: str) -> CheckContext:
    return CheckContext(
        base_sha="a" * 40, head_sha="b" * 40, changes=(), source=None,  # type: ignore[arg-type]
        settings=SETTINGS, python=python, sandbox="process",
    )  # fmt: skip


@pytest.fixture
def cuda_python(tmp_path: Path) -> str:
    """A user's interpreter whose torch says CUDA works."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import torch\ntorch.cuda.is_available = lambda: True\n", encoding="utf-8"
    )
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return str(python)


def test_auto_is_cuda_when_a_gpu_is_shown_and_torch_there_can_use_it(
    cuda_python: str, tmp_path: Path
) -> None:
    ctx = context(cuda_python)
    assert device_for(ctx, SETTINGS, "auto", root=tmp_path, visible=lambda: True) == "cuda"
    # No GPU driver shown: torch is not asked, whatever it would say.
    assert device_for(ctx, SETTINGS, "auto", root=tmp_path, visible=lambda: False) == "cpu"


@pytest.mark.parametrize("requested", ["cpu", "cuda"])
def test_a_device_asked_for_by_name_is_taken_as_asked(
    requested: Device, cuda_python: str, tmp_path: Path
) -> None:
    ctx = context(cuda_python if requested == "cpu" else str(tmp_path / "no" / "python"))
    assert device_for(ctx, SETTINGS, requested, root=tmp_path, visible=lambda: True) == requested


def test_auto_follows_torch_under_the_checks_own_interpreter(tmp_path: Path) -> None:
    ctx = context(sys.executable)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert device_for(ctx, SETTINGS, "auto", root=tmp_path) == expected  # this machine's GPU
    assert device_for(ctx, SETTINGS, "auto", root=tmp_path, visible=lambda: True) == expected
    # An interpreter that cannot even be asked runs on the CPU; the real run names its problem.
    nowhere = context(str(tmp_path / "no" / "python"))
    assert device_for(nowhere, SETTINGS, "auto", root=tmp_path, visible=lambda: True) == "cpu"
