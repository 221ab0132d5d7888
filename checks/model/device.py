"""`device: auto | cpu | cuda` -> the device a model check runs on, decided before the child starts.

The sandbox needs the device up front: a CPU run gets a memory cap and no GPUs, a CUDA run
neither (see ``checks.sandbox.env``). `auto` asks torch, in the user's interpreter, only when
the machine shows a GPU driver at all, so CPU-only machines pay nothing for it. `cuda` is not
checked here: the child refuses it when torch cannot use CUDA (``checks.model.child.prepare``),
which is an error, never a silent CPU run. ``device_for`` is that choice for a model check.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

from gradgate.checks.base import UserCodeSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.model.run import cuda_works

Device = Literal["auto", "cpu", "cuda"]

# NVIDIA's driver control node; AMD's ROCm (whose torch builds also call the device "cuda").
GPU_NODES = ("/dev/nvidiactl", "/dev/kfd")


def gpu_visible(
    environ: Mapping[str, str] = os.environ, exists: Callable[[str], bool] = os.path.exists
) -> bool:
    """Does this machine show a GPU driver that this process may use?"""
    if environ.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return False
    return any(exists(node) for node in GPU_NODES)


def choose_device(requested: Device, *, gpu_visible: bool, cuda_works: Callable[[], bool]) -> str:
    """The device to run on: `auto` is CUDA when a GPU is visible and torch can use it."""
    if requested != "auto":
        return requested
    if gpu_visible and cuda_works():
        return "cuda"
    return "cpu"


def device_for(
    ctx: CheckContext,
    settings: UserCodeSettings,
    requested: Device,
    *,
    root: Path | Callable[[], Path],
    visible: Callable[[], bool] = gpu_visible,
) -> str:
    """:func:`choose_device` for a model check: torch under the check's interpreter is asked, in
    a sandboxed child at ``root`` (the base checkout, or what makes it), only when `auto` meets
    a ``visible`` GPU."""
    return choose_device(
        requested,
        gpu_visible=visible(),
        cuda_works=lambda: cuda_works(
            ctx, settings, root=root if isinstance(root, Path) else root()
        ),
    )
