"""Child-side: the peak memory of a step, in bytes of tensors.

On CUDA, ``torch.cuda.max_memory_allocated`` (reset before the steps, read after). On the
CPU torch keeps no such counter, and the process's peak RSS is mostly torch's own import (a
model's growth of 50% moves it by a few percent), so the tensors are counted the way
``tracemalloc`` counts Python objects: a dispatch mode sees every storage an op creates and a
finalizer sees it freed; the peak of the live bytes over one training step and one inference
pass, starting from the parameters, buffers, gradients and inputs alive before, is the answer.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any, Callable

CUDA_MAX_ALLOCATED = "cuda-max-allocated"
TENSOR_PEAK = "tensor-peak"


def meter_for(device_type: str) -> str:
    """Which meter measures peak memory on ``device_type``: CUDA's allocator where there is one."""
    return CUDA_MAX_ALLOCATED if device_type == "cuda" else TENSOR_PEAK


def tensor_peak(steps: Iterable[Callable[[], Any]], alive: Iterable[Any]) -> int:
    """The most bytes of tensor storage alive at once while each of ``steps`` runs (each from
    what is alive at its start, the tensors in ``alive`` among them)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    class Counter(TorchDispatchMode):  # type: ignore[no-untyped-call]
        def __init__(self) -> None:
            super().__init__()  # type: ignore[no-untyped-call]
            self.live = 0
            self.peak = 0
            self.seen: set[int] = set()

        def track(self, value: Any) -> None:
            if not isinstance(value, torch.Tensor) or value.is_meta:
                return
            storage = value.untyped_storage()
            key = id(storage)
            if key in self.seen:
                return
            size = int(storage.nbytes())
            self.seen.add(key)
            self.live += size
            self.peak = max(self.peak, self.live)
            weakref.finalize(storage, self.free, key, size)

        def free(self, key: int, size: int) -> None:
            self.seen.discard(key)
            self.live -= size

        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any | None = None
        ) -> Any:
            out = func(*args, **(kwargs or {}))
            for value in tree_flatten(out)[0]:
                self.track(value)
            return out

    kept = list(alive)
    peak = 0
    for step in steps:
        counter = Counter()
        for tensor in kept:
            counter.track(tensor)
            counter.track(getattr(tensor, "grad", None))
        with counter:
            step()
        peak = max(peak, counter.peak)
    return peak


def cuda_peak(device: Any) -> int:
    import torch

    return int(torch.cuda.max_memory_allocated(device))


def reset_cuda_peak(device: Any) -> None:
    import torch

    torch.cuda.reset_peak_memory_stats(device)
