"""Let torchvision import beside a CPU-only torch: the registry's torchvision wheels are CUDA
builds, whose compiled ops do not load without torch's CUDA libraries, and torchvision then
fails at import registering fake kernels for two of them. The bench's models use none of its
ops, only modules that import torchvision; so declare those two ops' schemas, on CPU-only torch."""

from __future__ import annotations

from typing import Any

_KEEP: list[Any] = []  # a Library's definitions live as long as the object


def declare() -> None:
    import torch

    if torch.version.cuda is not None or _KEEP:
        return
    library = torch.library.Library("torchvision", "DEF")
    for op in ("nms", "qnms"):
        library.define(f"{op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _KEEP.append(library)
