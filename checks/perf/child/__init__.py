"""Inside the sandbox child: time the model's training step and its inference at one revision.

Child-side (see ``checks.sandbox.child``): imports only the standard library, torch and other
child-side modules. Two programs:

``measure`` (the perf check): the training step (``step``: the gradient check's forward, loss,
backward and SGD step, or the factory's own ``step``) and inference (``eval()`` + ``no_grad``
forward), ``warmup`` calls of each discarded, then ``steps`` timed (``timing``); each
top-level module's forward time over ``steps`` more inference passes (forward hooks); the
peak memory of a step (``memory``); and the batch size, for samples/s.

``latency`` (the metrics check's ``measure: latency``): ``runs`` inference calls timed after
``warmup``, the model as the factory gives it (no fp32 cast).

Each answers JSON, or ``{"problem": ...}`` like the other model programs.
"""

from __future__ import annotations

from typing import Any

from ...model.child import Problem, call_model, load, prepare
from ...sandbox.child import Target
from .memory import CUDA_MAX_ALLOCATED, cuda_peak, meter_for, reset_cuda_peak, tensor_peak
from .step import StepTarget, batch_size, training_step
from .timing import clock_for, module_times, times

__all__ = ["clock_for", "latency", "measure", "meter_for"]


def measure(request: dict[str, Any], target: Target) -> dict[str, Any]:
    wrapped = StepTarget(target)
    try:
        device = prepare(request)
        loaded = load(request, wrapped, device=device, float32=True)  # type: ignore[arg-type]
    except Problem as problem:
        return problem.as_json()
    import torch

    settings = request["kwargs"]["perf"]
    warmup, steps = int(settings["warmup"]), int(settings["steps"])
    if device.type == "cpu" and settings.get("threads"):
        torch.set_num_threads(int(settings["threads"]))  # steady beside other jobs' cores
    clock, meter = clock_for(device.type), meter_for(device.type)
    model = loaded.model
    train_step = training_step(loaded, wrapped.step, device=device)

    def infer() -> Any:
        with torch.no_grad():
            return call_model(loaded)

    if meter == CUDA_MAX_ALLOCATED:
        reset_cuda_peak(device)
    model.train()
    train = times(train_step, warmup, steps, clock)
    model.eval()
    inference = times(infer, warmup, steps, clock)
    modules = module_times(model, infer, steps, clock) if settings.get("modules") else {}
    unmeasured = None
    if meter == CUDA_MAX_ALLOCATED:
        peak = cuda_peak(device)
    else:
        alive = [*model.parameters(), *model.buffers(), *_tensors(loaded.args),
                 *_tensors(list(loaded.kwargs.values()))]  # fmt: skip
        try:
            model.train()
            peak = tensor_peak([train_step], alive)
            model.eval()
            peak = max(peak, tensor_peak([infer], alive))
        except Exception as exc:  # an op the counting mode cannot see through: time still counts
            peak, unmeasured = 0, f"{type(exc).__name__}: {exc}"[:300]
    return {"device": str(device), "clock": clock, "memory": meter, "train_s": train,
            "infer_s": inference, "peak_bytes": peak, "memory_problem": unmeasured,
            "modules": modules, "batch": batch_size(loaded),
            "step": "user" if wrapped.given else "sgd"}  # fmt: skip


def latency(request: dict[str, Any], target: Target) -> dict[str, Any]:
    try:
        device = prepare(request)
        loaded = load(request, target, device=device)
    except Problem as problem:
        return problem.as_json()
    import torch

    settings = request["kwargs"]["latency"]
    clock = clock_for(device.type)
    loaded.model.eval()

    def infer() -> Any:
        with torch.no_grad():
            return call_model(loaded)

    found = times(infer, int(settings["warmup"]), int(settings["runs"]), clock)
    return {"device": str(device), "clock": clock, "latency_s": found}


def _tensors(values: Any) -> list[Any]:
    import torch

    return [v for v in values if isinstance(v, torch.Tensor)]
