"""The `data` check's program: build the transform, feed it the input, encode what comes out.

The factory returns the transform (a callable) or a mapping with ``transform`` and optionally
``inputs`` (a list of the user's own inputs). Without inputs, the synthetic image of
:func:`synthetic` is offered as a NumPy HWC array, a PIL image, then a CHW uint8 tensor, in
that order (or the order the request names), and the first form the transform accepts is used.
Each input goes through the transform twice, with every RNG seeded the same before each call,
so the parent can tell a changed transform from a nondeterministic one.
"""

from __future__ import annotations

import importlib
import random
import sys
from typing import Any, Callable

from ...sandbox.child import Target, seed_libraries

HEIGHT, WIDTH = 24, 32  # not square: a 90° rotation shows in the shape
FORMS = ("numpy", "pil", "tensor")
MAX_VALUES = 1_000_000  # per output, so the message stays a few megabytes at most


def synthetic(height: int = HEIGHT, width: int = WIDTH) -> list[list[list[int]]]:
    """H×W×3 uint8 values: channel 0 grows as x², channel 1 as y^1.5, channel 2 with x·y and y,
    and a marker in the top-left corner, so channel order, flips and rotations all show."""
    rows = []
    for y in range(height):
        v = y / (height - 1)
        row = []
        for x in range(width):
            u = x / (width - 1)
            pixel = [
                round(20 + 200 * u * u),
                round(40 + 180 * v**1.5),
                round(30 + 60 * v + 120 * u * v),
            ]
            if y < 3 and x < 3:
                pixel = [250, 5, 128]
            row.append(pixel)
        rows.append(row)
    return rows


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _as_form(form: str, pixels: list[list[list[int]]]) -> Any:
    """The image in ``form``, or None where the library it needs is not installed."""
    if form == "numpy":
        numpy = _module("numpy")
        return None if numpy is None else numpy.array(pixels, dtype=numpy.uint8)
    if form == "pil":
        image = _module("PIL.Image")
        if image is None:
            return None
        flat = bytes(value for row in pixels for pixel in row for value in pixel)
        return image.frombytes("RGB", (len(pixels[0]), len(pixels)), flat)
    import torch

    return torch.tensor(pixels, dtype=torch.uint8).permute(2, 0, 1).contiguous()


def _seed(seed: int | None) -> None:
    if seed is None:
        return
    random.seed(seed)
    seed_libraries(seed)


def _unpack(made: Any) -> tuple[Callable[[Any], Any] | None, Any]:
    if isinstance(made, dict):
        return made.get("transform"), made.get("inputs")
    return made, None


def _twice(transform: Callable[[Any], Any], value: Any, seed: int | None) -> list[Any]:
    outputs = []
    for _ in range(2):
        _seed(seed)
        outputs.append(encode(transform(value)))
    return outputs


def probe(request: dict[str, Any], target: Target) -> Any:
    spec = request["kwargs"]["data"]
    for folder in reversed(spec.get("extra_path") or []):
        sys.path.insert(1, folder)  # after the revision's root, which stays first
    seed = request["seed"]
    _seed(seed)
    made = target.load()()
    transform, inputs = _unpack(made)
    if not callable(transform):
        got = type(made).__name__ if transform is None else type(transform).__name__
        return {"problem": {"code": "not-callable", "got": got}}
    to_eval = getattr(transform, "eval", None)
    if callable(to_eval):
        to_eval()  # an nn.Module: eval-style, no dropout or batch statistics
    if inputs is not None:
        if not isinstance(inputs, (list, tuple)) or not inputs:
            return {"problem": {"code": "bad-inputs", "got": type(inputs).__name__}}
        runs = [_twice(transform, value, seed) for value in inputs]
        return {"form": "yours", "runs": runs}
    pixels = synthetic()
    failed: BaseException | None = None
    for form in spec.get("forms") or FORMS:
        value = _as_form(form, pixels)
        if value is None:
            continue
        try:
            runs = [_twice(transform, value, seed)]
        except Exception as exc:  # this form is not what the transform takes: try the next
            failed = exc
            continue
        flat = [float(v) for row in pixels for pixel in row for v in pixel]
        source = {
            "kind": "synthetic",
            "dtype": "uint8",
            "shape": [HEIGHT, WIDTH, 3],
            "values": flat,
        }
        return {"form": form, "runs": runs, "input": source}
    if failed is None:
        return {"problem": {"code": "no-form"}}
    raise failed


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
