"""Outputs as images: the canonical channels × rows × columns view, and the geometries tried.

Pure Python on the values the child sent (a few thousand numbers): no NumPy on gradgate's side.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import mul, sub

Plane = list[list[float]]  # rows of values
IMAGE_CHANNELS = (1, 3, 4)


@dataclass(frozen=True, slots=True)
class Image:
    """An output read as an image: its channels (each rows × columns), how it was laid out."""

    channels: tuple[Plane, ...]
    layout: str  # "HWC", "CHW" or "HW"
    batch: bool  # a leading dimension of size 1 was dropped

    @property
    def size(self) -> tuple[int, int]:
        first = self.channels[0]
        return len(first), len(first[0]) if first else 0


def as_image(shape: Sequence[int], values: Sequence[float]) -> Image | None:
    """``values`` (row-major, of ``shape``) as an image, or None when it does not look like one."""
    dims = list(shape)
    batch = False
    while len(dims) > 3 and dims[0] == 1:
        dims, batch = dims[1:], True
    if len(dims) == 2 and min(dims) > 1:
        height, width = dims
        return Image((_plane(values, height, width, 1, 0),), "HW", batch)
    if len(dims) != 3:
        return None
    if dims[-1] in IMAGE_CHANNELS and dims[0] not in IMAGE_CHANNELS:
        height, width, count = dims
        planes = tuple(_plane(values, height, width, count, c) for c in range(count))
        return Image(planes, "HWC", batch)
    if dims[0] in IMAGE_CHANNELS:
        count, height, width = dims
        size = height * width
        planes = tuple(
            _plane(values[c * size : (c + 1) * size], height, width, 1, 0) for c in range(count)
        )
        return Image(planes, "CHW", batch)
    return None


def _plane(values: Sequence[float], height: int, width: int, step: int, offset: int) -> Plane:
    return [[values[(y * width + x) * step + offset] for x in range(width)] for y in range(height)]


def _transpose(plane: Plane) -> Plane:
    return [list(column) for column in zip(*plane, strict=True)]


# Each geometry maps base's plane to where head would have it; identity first (preferred).
GEOMETRIES: tuple[tuple[str, Callable[[Plane], Plane]], ...] = (
    ("", lambda p: p),
    ("flipped left–right", lambda p: [row[::-1] for row in p]),
    ("flipped upside down", lambda p: p[::-1]),
    ("rotated 180°", lambda p: [row[::-1] for row in p[::-1]]),
    ("rotated 90° counter-clockwise", lambda p: _transpose(p)[::-1]),
    ("rotated 90° clockwise", lambda p: [row[::-1] for row in _transpose(p)]),
    ("transposed (height and width swapped)", _transpose),
)


@dataclass(frozen=True, slots=True)
class Fit:
    """head ≈ scale · base + offset, and the largest error left."""

    scale: float
    offset: float
    error: float


def flat(plane: Plane) -> list[float]:
    return [v for row in plane for v in row]


SAMPLE = 257  # pixels a fit tries first (a prime step, so rows and columns both vary)


def fit_within(xs: Sequence[float], ys: Sequence[float], threshold: float) -> Fit | None:
    """:func:`fit` on all of the pixels, unless a fit on every n-th of them already misses
    ``threshold`` (then that sample's fit, whose error says it does not match)."""
    step = len(xs) // SAMPLE
    if step > 1:
        sampled = fit(xs[::step], ys[::step])
        if sampled is None or sampled.error > threshold:
            return sampled
    return fit(xs, ys)


def fit(xs: Sequence[float], ys: Sequence[float]) -> Fit | None:
    """Least-squares ``ys ≈ scale · xs + offset`` (scale > 0), or None if sizes differ."""
    if len(xs) != len(ys) or not xs:
        return None
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    var = sum(map(mul, xs, xs)) - n * mean_x * mean_x
    cov = sum(map(mul, xs, ys)) - n * mean_x * mean_y
    scale = cov / var if var > 1e-12 * n * max(1.0, mean_x * mean_x) else 1.0
    if scale <= 0:  # a normalization never negates; a negative fit is another geometry
        return Fit(1.0, 0.0, max(map(abs, map(sub, xs, ys))))
    offset = mean_y - scale * mean_x
    error = max(abs(scale * x + offset - y) for x, y in zip(xs, ys, strict=True))
    return Fit(scale, offset, error)
