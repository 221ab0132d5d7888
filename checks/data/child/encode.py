"""Inside the sandbox child: outputs as JSON values, and whether two calls' outputs agree.

Each output becomes ``{"kind", "dtype", "shape", "values"}`` (values row-major, as floats);
mappings and sequences of outputs are flattened into ``name.key`` and ``name[i]``.
"""

from __future__ import annotations

import sys
from typing import Any

MAX_VALUES = 1_000_000  # per output, so the message stays a few megabytes at most


def encode(value: Any, name: str = "output") -> dict[str, Any]:
    """``value`` as ``{name: {"kind", "dtype", "shape", "values"}}``, mappings and sequences of
    outputs flattened into ``name.key`` and ``name[i]``."""
    if isinstance(value, dict):
        found: dict[str, Any] = {}
        for key, item in value.items():
            found.update(encode(item, f"{name}.{key}"))
        return found
    if isinstance(value, (list, tuple)) and not _is_number_list(value):
        found = {}
        for index, item in enumerate(value):
            found.update(encode(item, f"{name}[{index}]"))
        return found
    return {name: _array(value)}


def agree(first: dict[str, Any], second: dict[str, Any], tolerance: float) -> bool:
    """Are two encoded calls' outputs the same within ``tolerance``?"""
    if first.keys() != second.keys():
        return False
    for name, one in first.items():
        other = second[name]
        if (one["dtype"], one["shape"], one.get("repr")) != (
            other["dtype"],
            other["shape"],
            other.get("repr"),
        ):
            return False
        a, b = one["values"], other["values"]
        if a == b:
            continue
        if a is None or b is None or len(a) != len(b):
            return False
        if any(abs(x - y) > tolerance for x, y in zip(a, b)):
            return False
    return True


def _is_number_list(value: Any) -> bool:
    return all(isinstance(item, (int, float)) for item in value)


def _array(value: Any) -> dict[str, Any]:
    kind = type(value).__module__.split(".")[0] + "." + type(value).__name__
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        flat = value.detach().cpu()
        dtype = str(flat.dtype).replace("torch.", "")
        shape = list(flat.shape)
        values = flat.double().flatten().tolist()
    elif hasattr(value, "getbands") and hasattr(value, "tobytes"):  # a PIL image
        bands = len(value.getbands())
        dtype = f"uint8 ({value.mode})"
        shape = [value.size[1], value.size[0]] + ([bands] if bands > 1 else [])
        values = [float(b) for b in value.tobytes()] if value.mode in ("RGB", "L", "RGBA") else []
    elif hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "tolist"):
        dtype = str(value.dtype)
        shape = [int(n) for n in value.shape]
        values = [float(v) for v in value.astype("float64").reshape(-1).tolist()]
    elif isinstance(value, (int, float, bool)) or (
        isinstance(value, (list, tuple)) and _is_number_list(value)
    ):
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        dtype = type(items[0]).__name__ if items else "float"
        shape = [len(items)] if isinstance(value, (list, tuple)) else []
        values = [float(v) for v in items]
    else:
        return {
            "kind": kind,
            "dtype": None,
            "shape": None,
            "values": None,
            "repr": repr(value)[:200],
        }
    if len(values) > MAX_VALUES:
        values = values[:MAX_VALUES]
    return {"kind": kind, "dtype": dtype, "shape": shape, "values": values}
