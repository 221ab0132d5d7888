"""Inside the sandbox child: time the model's training step and its inference at one revision.

Child-side (see ``checks.sandbox.child``): imports only the standard library, torch and other
child-side modules. The training step is the gradient check's: forward, the user's loss (or
the seeded projection), backward, a plain SGD step. Inference is ``eval()`` + ``no_grad``
forward. ``warmup`` calls of each are discarded, then ``steps`` are timed: with CUDA events
(synchronised) on CUDA, with ``perf_counter`` on the CPU. Answers the per-step seconds, the
clock used and the peak memory (``torch.cuda.max_memory_allocated`` on CUDA, else the
process's peak RSS), or ``{"problem": ...}`` like the other model programs.
"""

from __future__ import annotations

import resource
import time
from typing import Any, Callable

from ..gradient.child.loss import make_loss
from ..model.child import Problem, call_model, load, prepare
from ..sandbox.child import Target

LEARNING_RATE = 1e-3


def clock_for(device_type: str) -> str:
    """Which clock times steps on ``device_type``: CUDA kernels run asynchronously, so only
    events recorded on the stream (and a synchronise) see their time."""
    return "cuda-events" if device_type == "cuda" else "perf_counter"


def measure(request: dict[str, Any], target: Target) -> dict[str, Any]:
    try:
        device = prepare(request)
        loaded = load(request, target, device=device, float32=True)
    except Problem as problem:
        return problem.as_json()
    import torch

    settings = request["kwargs"]["perf"]
    warmup, steps = int(settings["warmup"]), int(settings["steps"])
    clock = clock_for(device.type)
    model = loaded.model
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=LEARNING_RATE) if trainable else None

    def train_step() -> None:
        loss = make_loss(call_model(loaded), loaded.loss, device=device)
        if loss is not None and loss.requires_grad:
            loss.backward()
        if optimizer is not None:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

    if clock == "cuda-events":
        torch.cuda.reset_peak_memory_stats(device)
    model.train()
    train = _times(train_step, warmup, steps, clock)
    model.eval()
    with torch.no_grad():
        infer = _times(lambda: call_model(loaded), warmup, steps, clock)
    if clock == "cuda-events":
        peak = int(torch.cuda.max_memory_allocated(device))
    else:
        peak = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # KiB on Linux
    return {"device": str(device), "clock": clock, "train_s": train, "infer_s": infer,
            "peak_bytes": peak}  # fmt: skip


def _times(step: Callable[[], Any], warmup: int, steps: int, clock: str) -> list[float]:
    for _ in range(warmup):
        step()
    if clock == "cuda-events":
        return _cuda_times(step, steps)
    found = []
    for _ in range(steps):
        started = time.perf_counter()
        step()
        found.append(time.perf_counter() - started)
    return found


def _cuda_times(step: Callable[[], Any], steps: int) -> list[float]:
    import torch

    pairs = []
    for _ in range(steps):
        start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
        end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
        start.record()
        step()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return [start.elapsed_time(end) / 1000.0 for start, end in pairs]  # ms -> s
