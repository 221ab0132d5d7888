"""Programs that look at the user's model without checking it: CUDA here? what does it build?"""

from __future__ import annotations

import sys
from typing import Any

from ...sandbox.child import Target
from .build import Problem, call_model, load, prepare, type_name


def cuda_available(request: dict[str, Any], target: Target) -> bool:
    """A program: can torch under this interpreter use CUDA here? (``device: auto``)"""
    import torch

    return bool(torch.cuda.is_available())


def inspect_model(request: dict[str, Any], target: Target) -> dict[str, Any]:
    """A program: build the model as a check would, call it once, and describe what ran."""
    import torch

    try:
        device = prepare(request)
        loaded = load(
            request, target, device=device, float32=bool(request["kwargs"].get("float32"))
        )
    except Problem as problem:
        return problem.as_json()
    with torch.no_grad():
        outputs = call_model(loaded)
    first = next(loaded.model.parameters(), None)
    return {
        "model": type_name(loaded.model),
        "parameters": sum(p.numel() for p in loaded.model.parameters()),
        "training": loaded.model.training,
        "device": None if first is None else str(first.device),
        "dtype": None if first is None else str(first.dtype).replace("torch.", ""),
        "inputs_from": loaded.inputs_from,
        "args": [_shape(a) for a in loaded.args],
        "kwargs": {key: _shape(value) for key, value in loaded.kwargs.items()},
        "outputs": _shape(outputs),
        "loss": None if loaded.loss is None else float(loaded.loss(outputs)),
        "sys_path": sys.path[:3],
        "deterministic": torch.are_deterministic_algorithms_enabled(),
    }


def _shape(value: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return list(value.shape)
    if isinstance(value, (tuple, list)):
        return [_shape(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _shape(item) for key, item in value.items()}
    return type_name(value)
