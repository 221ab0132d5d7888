"""Load a meta state dict into the meta model, as the user's code would, and see what happens.

``load_state_dict(state, strict=False, assign=True)`` runs every load shim the model has (its
``_load_from_state_dict`` overrides, pre- and post-hooks, BatchNorm's and weight_norm's own),
on meta tensors, so nothing is copied. A post hook on the root module sees the final missing
and unexpected keys even when shape errors make the call raise afterwards. ``assign=True``
swaps in the checkpoint's tensors, which tells which model keys were filled and with what
dtype (``copy_`` would cast silently, C7); the model's own tensors are put back afterwards, so
tied weights stay tied for the next run.
"""

from __future__ import annotations

import re
from typing import Any

from .describe import dtype_name

_SIZE = re.compile(
    r"size mismatch for (?P<key>.+?): copying a param with shape "
    r"torch\.Size\(\[(?P<ckpt>[\d, ]*)\]\) from checkpoint, the shape in current model is "
    r"torch\.Size\(\[(?P<model>[\d, ]*)\]\)\.?$"
)
_HEADER = re.compile(r"^Error\(s\) in loading state_dict for \w+:$")


def _shape(text: str) -> list[int]:
    return [int(n) for n in text.split(",") if n.strip()]


def _slots(model: Any) -> list[tuple[Any, str, str, Any]]:
    """(module, "_parameters" or "_buffers", name, tensor) for every slot, ties included."""
    slots = []
    for _, module in model.named_modules(remove_duplicate=False):
        for table in ("_parameters", "_buffers"):
            for name, tensor in getattr(module, table).items():
                if tensor is not None:
                    slots.append((module, table, name, tensor))
    return slots


def dry_run(model: Any, state: Any) -> dict[str, Any]:
    """What loading ``state`` (meta tensors) into ``model`` (on meta) does."""
    before = model.state_dict(keep_vars=True)
    slots = _slots(model)
    seen: dict[str, list[str]] = {}

    def capture(_module: Any, incompatible: Any) -> None:
        seen["missing"] = list(incompatible.missing_keys)
        seen["unexpected"] = list(incompatible.unexpected_keys)

    handle = model.register_load_state_dict_post_hook(capture)
    shapes, errors = [], []
    try:
        model.load_state_dict(state, strict=False, assign=True)
    except RuntimeError as exc:
        for line in str(exc).split("\n\t"):
            match = _SIZE.match(line.strip())
            if match:
                shapes.append([match["key"], _shape(match["ckpt"]), _shape(match["model"])])
            elif not _HEADER.match(line.strip()):
                errors.append(line.strip())
    except Exception as exc:  # a load hook of the model raised
        errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        handle.remove()
        after = model.state_dict(keep_vars=True)
        for module, table, name, tensor in slots:
            getattr(module, table)[name] = tensor
    loaded, dtypes = [], []
    for key, old in before.items():
        new = after.get(key)
        if new is None or new is old:
            continue
        loaded.append(key)
        if getattr(new, "dtype", None) is not None and new.dtype != old.dtype:
            dtypes.append([key, dtype_name(new.dtype), dtype_name(old.dtype)])
    return {
        "missing": seen.get("missing", []),
        "unexpected": seen.get("unexpected", []),
        "shapes": shapes,
        "dtypes": dtypes,
        "loaded": loaded,
        "errors": errors,
    }
