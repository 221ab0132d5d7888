"""What a model's state dict holds, read from the model (built on the meta device) as JSON.

Keys with shape, dtype and kind; the groups of keys that are one tensor (tied weights); the
buffers left out of the state dict on purpose (``persistent=False``); the module versions
PyTorch stores in ``_metadata`` (BatchNorm's load shim reads them).
"""

from __future__ import annotations

from typing import Any

import torch


def dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def tensor_json(value: Any) -> list[Any]:
    """[shape, dtype] of a tensor; a non-tensor entry (``_extra_state``) has dtype "object"."""
    if isinstance(value, torch.Tensor):
        return [list(value.shape), dtype_name(value.dtype)]
    return [[], "object"]


def describe(model: Any) -> dict[str, Any]:
    state = model.state_dict(keep_vars=True)
    parameters = {id(p) for p in model.parameters()}
    entries: dict[str, list[Any]] = {}
    kinds: dict[str, str] = {}
    groups: dict[int, list[str]] = {}
    for key, value in state.items():
        entries[key] = tensor_json(value)
        kinds[key] = "parameter" if id(value) in parameters else "buffer"
        if isinstance(value, torch.Tensor):
            groups.setdefault(id(value), []).append(key)
    return {
        "entries": entries,
        "kinds": kinds,
        "tied": [keys for keys in groups.values() if len(keys) > 1],
        "non_persistent": non_persistent_buffers(model),
        "versions": versions(state),
        "parameters": sum(p.numel() for p in model.parameters()),
    }


def non_persistent_buffers(model: Any) -> list[str]:
    names = []
    for prefix, module in model.named_modules(remove_duplicate=False):
        for name in sorted(getattr(module, "_non_persistent_buffers_set", ())):
            if module._buffers.get(name) is not None:
                names.append(prefix + "." + name if prefix else name)
    return names


def versions(state: Any) -> dict[str, Any]:
    """``_metadata`` as JSON: module prefix -> {"version": n}."""
    metadata = getattr(state, "_metadata", None) or {}
    return {
        prefix: {k: v for k, v in info.items() if k == "version" and isinstance(v, int)}
        for prefix, info in metadata.items()
    }
