"""Child-side: the clock that times a step on each device, and forward hooks that time each
top-level module of the model.

CUDA kernels run asynchronously, so on CUDA only events recorded on the stream (and one
synchronise at the end) see a step's time; on the CPU ``time.perf_counter`` does.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

CUDA_EVENTS = "cuda-events"
PERF_COUNTER = "perf_counter"


def clock_for(device_type: str) -> str:
    """Which clock times steps on ``device_type``."""
    return CUDA_EVENTS if device_type == "cuda" else PERF_COUNTER


def times(step: Callable[[], Any], warmup: int, steps: int, clock: str) -> list[float]:
    """``warmup`` calls of ``step`` discarded, then the seconds of each of ``steps`` calls."""
    for _ in range(warmup):
        step()
    if clock == CUDA_EVENTS:
        return _cuda_times(step, steps)
    found = []
    for _ in range(steps):
        started = time.perf_counter()
        step()
        found.append(time.perf_counter() - started)
    return found


def _cuda_times(step: Callable[[], Any], steps: int) -> list[float]:
    pairs = []
    for _ in range(steps):
        start, end = _event(), _event()
        start.record()
        step()
        end.record()
        pairs.append((start, end))
    _synchronize()
    return [start.elapsed_time(end) / 1000.0 for start, end in pairs]  # ms -> s


def module_times(
    model: Any, forward: Callable[[], Any], passes: int, clock: str
) -> dict[str, float]:
    """Median seconds per forward pass spent in each top-level module (``named_children``),
    over ``passes`` calls of ``forward``; a module called several times in one pass counts
    every call. Forward hooks only: the first level, as issue 23 asks."""
    spent: dict[str, list[Any]] = {}
    handles = []
    for name, child in model.named_children():
        spent[name] = []
        handles.append(child.register_forward_pre_hook(_pre_hook(name, spent, clock)))
        handles.append(child.register_forward_hook(_post_hook(name, spent, clock)))
    per_pass: dict[str, list[float]] = {name: [] for name in spent}
    try:
        for _ in range(passes):
            for calls in spent.values():
                calls.clear()
            forward()
            if clock == CUDA_EVENTS:
                _synchronize()
            for name, calls in spent.items():
                per_pass[name].append(sum(_seconds(call, clock) for call in calls))
    finally:
        for handle in handles:
            handle.remove()
    return {name: statistics.median(found) for name, found in per_pass.items() if found}


def _pre_hook(name: str, spent: dict[str, list[Any]], clock: str) -> Callable[..., None]:
    def hook(module: Any, args: Any) -> None:
        if clock == CUDA_EVENTS:
            start = _event()
            start.record()
            spent[name].append([start, None])
        else:
            spent[name].append([time.perf_counter(), None])

    return hook


def _post_hook(name: str, spent: dict[str, list[Any]], clock: str) -> Callable[..., None]:
    def hook(module: Any, args: Any, output: Any) -> None:
        if not spent[name] or spent[name][-1][1] is not None:
            return  # a pre-hook that did not run (the module was entered before the hooks)
        if clock == CUDA_EVENTS:
            end = _event()
            end.record()
            spent[name][-1][1] = end
        else:
            spent[name][-1][1] = time.perf_counter()

    return hook


def _seconds(call: list[Any], clock: str) -> float:
    start, end = call
    if end is None:
        return 0.0
    if clock == CUDA_EVENTS:
        return float(start.elapsed_time(end)) / 1000.0
    return float(end - start)


def _event() -> Any:
    import torch

    return torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]


def _synchronize() -> None:
    import torch

    torch.cuda.synchronize()
