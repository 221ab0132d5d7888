"""Inside the sandbox child: gradgate's synthetic image, in the forms a transform may take.

The image is H×W×3 uint8 whose channels carry distinct, asymmetric ramps and a marker in one
corner, so channel order, flips, rotations, crops and resizes each leave a recognisable trace.
NumPy and PIL are used only where installed.
"""

from __future__ import annotations

import importlib
from typing import Any

HEIGHT, WIDTH = 24, 32  # not square: a 90° rotation shows in the shape
FORMS = ("numpy", "pil", "tensor")


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


def module(name: str) -> Any:
    """``name`` imported, or None where it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def as_form(form: str, pixels: list[list[list[int]]]) -> Any:
    """The image in ``form``, or None where the library it needs is not installed."""
    if form == "numpy":
        numpy = module("numpy")
        return None if numpy is None else numpy.array(pixels, dtype=numpy.uint8)
    if form == "pil":
        image = module("PIL.Image")
        if image is None:
            return None
        flat = bytes(value for row in pixels for pixel in row for value in pixel)
        return image.frombytes("RGB", (len(pixels[0]), len(pixels)), flat)
    torch = module("torch")
    if torch is None:
        return None
    return torch.tensor(pixels, dtype=torch.uint8).permute(2, 0, 1).contiguous()


def described(pixels: list[list[list[int]]]) -> dict[str, Any]:
    """The synthetic image as the parent reads it (HWC uint8 values)."""
    flat = [float(v) for row in pixels for pixel in row for v in pixel]
    shape = [len(pixels), len(pixels[0]), 3]
    return {"kind": "synthetic", "dtype": "uint8", "shape": shape, "values": flat}
