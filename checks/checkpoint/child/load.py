"""Reference checkpoints as meta tensors: torch.load with weights_only=True, never the weights.

A zip file is memory-mapped (``mmap=True``): tensors point into the mapping and no byte of the
weights is read, yet their storages can still be compared, which tells tied entries apart. A
legacy file cannot be mapped; ``map_location="meta"`` makes torch skip its storages instead
(measured: a 512 MB legacy file loads in ~55 ms with ~6 MB of memory). Either way the result
is turned into meta tensors before the model's load hooks see it, so no hook can read weights.

``weights_only=False`` is never used: the parent has already refused files whose pickle
imports anything but tensor machinery, and a torch older than MIN_TORCH is not trusted to load
even those (its weights_only unpickler had holes); the parent says so instead.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import torch

from .policy import KNOWN_KEYS


class NotAStateDict(Exception):
    """The checkpoint has no state dict where the settings (or the known keys) point."""


def torch_version() -> tuple[int, int]:
    major, minor = torch.__version__.split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def load_file(path: str, *, zip_format: bool, key: str | None) -> tuple[Any, str | None]:
    """(the state dict as meta tensors with its ``_metadata``, the key path it was found at)."""
    if zip_format:
        loaded = torch.load(path, weights_only=True, mmap=True, map_location="cpu")
    else:
        loaded = torch.load(path, weights_only=True, map_location="meta")
    state, where = select(loaded, key)
    return to_meta(state), where


def is_state_dict(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(v, torch.Tensor) for v in value.values())


def select(loaded: Any, key: str | None) -> tuple[Any, str | None]:
    if key is not None:
        value = loaded
        for part in key.split("/"):
            if not isinstance(value, dict) or part not in value:
                raise NotAStateDict(f"there is no `{key}` in it{_top(loaded)}")
            value = value[part]
        if not is_state_dict(value):
            raise NotAStateDict(f"`{key}` in it holds no tensors{_top(loaded)}")
        return value, key
    if isinstance(loaded, dict) and all(isinstance(v, torch.Tensor) for v in loaded.values()):
        return loaded, None
    for known in KNOWN_KEYS:
        if isinstance(loaded, dict) and is_state_dict(loaded.get(known)):
            return loaded[known], known
    raise NotAStateDict(f"it is not a state dict and holds none under a known key{_top(loaded)}")


def _top(loaded: Any) -> str:
    if not isinstance(loaded, dict):
        return f" (it holds a {type(loaded).__name__})"
    keys = ", ".join(f"`{k}`" for k in list(loaded)[:12])
    return f" (its top-level keys: {keys})" if keys else " (it is an empty dict)"


def to_meta(state: Any) -> Any:
    """Meta tensors with the same shapes and dtypes; entries sharing storage stay one tensor."""
    result: Any = OrderedDict()
    made: dict[Any, Any] = {}
    for name, value in state.items():
        if isinstance(value, torch.Tensor):
            sharing = _identity(value)
            if sharing is not None and sharing in made:
                result[name] = made[sharing]
                continue
            meta = torch.empty_strided(
                value.shape, value.stride(), dtype=value.dtype, device="meta"
            )
            if sharing is not None:
                made[sharing] = meta
            result[name] = meta
        else:
            result[name] = value
    metadata = getattr(state, "_metadata", None)
    if metadata is not None:
        result._metadata = metadata
    return result


def _identity(value: Any) -> Any:
    if value.device.type == "meta":
        return None  # a legacy file loaded to meta: storages cannot be compared
    return (value.untyped_storage()._cdata, value.storage_offset(), tuple(value.shape))


def from_entries(
    entries: dict[str, Any], versions: dict[str, Any] | None, shared: list[list[str]] | None
) -> Any:
    """A meta state dict from JSON entries ({key: [shape, dtype]}), as the parent read them;
    each ``shared`` group of keys becomes one tensor, as torch.save keeps tied weights."""
    result: Any = OrderedDict()
    for key, (shape, dtype) in entries.items():
        kind = getattr(torch, dtype, None)
        # A dtype this torch lacks (or a non-tensor entry) stays a placeholder: the load then
        # names the key as unloadable rather than guessing a dtype.
        if isinstance(kind, torch.dtype):
            result[key] = torch.empty(shape, dtype=kind, device="meta")
        else:
            result[key] = None
    for group in shared or []:
        present = [key for key in group if key in result]
        for key in present[1:]:
            result[key] = result[present[0]]
    if versions:
        result._metadata = OrderedDict((k, dict(v)) for k, v in versions.items())
    return result
