"""How head's image sits on base's: a small rotation, a crop offset or a resize, estimated (pure).

Used where base's and head's images are the same picture moved (no flip, 90° turn or channel
change explains them): gradgate's synthetic input has channels that are distinct ramps in x and
y, so a pixel's values say where in the picture it is. Each sampled pixel of head is matched to
the pixel of base with the nearest values (both in base's units: the normalization is assumed
unchanged), and an affine map from head's pixel grid to base's is fitted by least squares,
dropping the worst matches (the marker, flat ramps, fill at rotated corners) once. The map is
read as a rotation angle, a scale and a shift; a poor fit says nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gradgate.checks.data.image import Image

BASE_POINTS = 4096  # base pixels indexed at most (every n-th row and column)
HEAD_POINTS = 1500  # head pixels matched at most
NEAR = 0.05  # how close two pixels' values must be, per channel, as a share of base's range
MIN_SHARE = 0.25  # of head's sampled pixels that must find a match
MAX_RMS = 0.75  # pixels (times base's sampling step) left after the fit

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Warp:
    """head pixel (x, y) ≈ base pixel (a·x + b·y + c, d·x + e·y + f)."""

    a: float
    b: float
    c: float
    d: float
    e: float
    f: float

    @property
    def degrees(self) -> float:
        """Head's picture turned counter-clockwise (as seen) from base's, in degrees."""
        return math.degrees(math.atan2(self.d - self.b, self.a + self.e))

    @property
    def scales(self) -> tuple[float, float]:
        """Head's size over base's, in width and in height."""
        return 1 / math.hypot(self.a, self.d), 1 / math.hypot(self.b, self.e)


def _stride(height: int, width: int, most: int) -> int:
    return max(1, math.ceil(math.sqrt(height * width / most)))


def estimate(base: Image, head: Image) -> Warp | None:
    """The affine map from head's pixels to base's, or None where the values do not say it."""
    count = len(base.channels)
    if count < 2 or count != len(head.channels):
        return None
    ranges = []
    for plane in base.channels:
        values = [v for row in plane for v in row]
        low, high = min(values), max(values)
        if high <= low:
            return None
        ranges.append((low, high - low))
    cell = NEAR
    (height, width), step = base.size, _stride(*base.size, BASE_POINTS)
    buckets: dict[tuple[int, int], list[tuple[Point, tuple[float, ...]]]] = {}
    for y in range(0, height, step):
        for x in range(0, width, step):
            key_values = _unit(base.channels, ranges, y, x)
            key = (int(key_values[0] // cell), int(key_values[1] // cell))
            buckets.setdefault(key, []).append(((x, y), key_values))
    (h_height, h_width) = head.size
    h_step = _stride(h_height, h_width, HEAD_POINTS)
    pairs: list[tuple[Point, Point]] = []
    sampled = 0
    limit = NEAR * NEAR * count
    for y in range(0, h_height, h_step):
        for x in range(0, h_width, h_step):
            sampled += 1
            found = _unit(head.channels, ranges, y, x)
            k0, k1 = int(found[0] // cell), int(found[1] // cell)
            best, where = limit, None
            for i in (k0 - 1, k0, k0 + 1):
                for j in (k1 - 1, k1, k1 + 1):
                    for point, other in buckets.get((i, j), ()):
                        distance = sum((p - q) ** 2 for p, q in zip(found, other, strict=True))
                        if distance <= best:
                            best, where = distance, point
            if where is not None:
                pairs.append(((x, y), where))
    if len(pairs) < max(12, MIN_SHARE * sampled):
        return None
    warp = _fit(pairs)
    if warp is None:
        return None
    errors = sorted(_error(warp, p) for p in pairs)
    keep = max(1.5 * step, 2.5 * errors[len(errors) // 2])
    kept = [p for p in pairs if _error(warp, p) <= keep]
    warp = _fit(kept) if len(kept) >= 12 else None
    if warp is None:
        return None
    rms = math.sqrt(sum(_error(warp, p) ** 2 for p in kept) / len(kept))
    return warp if rms <= MAX_RMS * step else None


def _unit(
    channels: Sequence[list[list[float]]], ranges: Sequence[tuple[float, float]], y: int, x: int
) -> tuple[float, ...]:
    return tuple(
        (plane[y][x] - low) / span for plane, (low, span) in zip(channels, ranges, strict=True)
    )


def _error(warp: Warp, pair: tuple[Point, Point]) -> float:
    (x, y), (bx, by) = pair
    return math.hypot(warp.a * x + warp.b * y + warp.c - bx, warp.d * x + warp.e * y + warp.f - by)


def _fit(pairs: Sequence[tuple[Point, Point]]) -> Warp | None:
    """Least squares for both rows of the map at once (one 3×3 normal system)."""
    sxx = sxy = syy = sx = sy = 0.0
    n = float(len(pairs))
    tx = [0.0, 0.0, 0.0]
    ty = [0.0, 0.0, 0.0]
    for (x, y), (bx, by) in pairs:
        sxx, sxy, syy, sx, sy = sxx + x * x, sxy + x * y, syy + y * y, sx + x, sy + y
        tx = [tx[0] + x * bx, tx[1] + y * bx, tx[2] + bx]
        ty = [ty[0] + x * by, ty[1] + y * by, ty[2] + by]
    matrix = ((sxx, sxy, sx), (sxy, syy, sy), (sx, sy, n))
    first, second = _solve(matrix, tx), _solve(matrix, ty)
    if first is None or second is None:
        return None
    return Warp(*first, *second)


def _solve(m: Sequence[Sequence[float]], v: Sequence[float]) -> tuple[float, float, float] | None:
    det = _det(m)
    if abs(det) < 1e-9:
        return None
    found = []
    for column in range(3):
        replaced = [[v[r] if c == column else m[r][c] for c in range(3)] for r in range(3)]
        found.append(_det(replaced) / det)
    return found[0], found[1], found[2]


def _det(m: Sequence[Sequence[float]]) -> float:
    return (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )


def words(warp: Warp, base: Image, head: Image) -> str | None:
    """The map in a reviewer's words, or None where head's picture sits where base's did."""
    degrees, (wide, tall) = warp.degrees, warp.scales
    said: list[str] = []
    if abs(degrees) >= 0.75:
        turn = "counter-clockwise" if degrees > 0 else "clockwise"
        amount = f"{abs(degrees):.0f}" if abs(degrees) >= 2 else f"{abs(degrees):.1f}"
        said.append(f"rotated ~{amount}° {turn}")
    sizes = f"{_size(base)} → {_size(head)}"
    if abs(wide - 1) > 0.04 or abs(tall - 1) > 0.04:
        factor = (
            f"×{wide:.2g}" if abs(wide - tall) < 0.04 else f"×{wide:.2g} wide, ×{tall:.2g} tall"
        )
        said.append(f"resized {factor} ({sizes})")
    elif not said:
        dx, dy = _whole(warp.c), _whole(warp.f)  # a crop moves by whole pixels
        (height, width), (h_height, h_width) = base.size, head.size
        if base.size != head.size:
            by = _sides(("in height", height - h_height), ("in width", width - h_width))
            said.append(f"cropped by {by} ({sizes})")
        if dx or dy:
            moved = _sides((("right", "left"), dx), (("down", "up"), dy))
            said.append(f"shifted {moved} (the crop window moved)")
    if not said:
        return None
    return f"head's image is {', '.join(said)} relative to base's"


def _whole(shift: float) -> int:
    """``shift`` as whole pixels where it is close to them; 0 for a fraction (resampling)."""
    near = round(shift)
    return near if abs(shift - near) < 0.25 else 0


def resampled(warp: Warp) -> bool:
    """Does head's picture sit where base's does, give or take a fraction of a pixel?"""
    (wide, tall), degrees = warp.scales, warp.degrees
    return (
        abs(degrees) < 0.75
        and abs(wide - 1) <= 0.04
        and abs(tall - 1) <= 0.04
        and not (_whole(warp.c) or _whole(warp.f))
    )


def _sides(*parts: tuple[str | tuple[str, str], int]) -> str:
    """(\"in height\", 4) -> "4 px in height"; (("right", "left"), -2) -> "2 px left"."""
    said = []
    for name, amount in parts:
        if amount:
            side = name if isinstance(name, str) else name[0 if amount > 0 else 1]
            said.append(f"{abs(amount)} px {side}")
    return " and ".join(said) if said else "0 px"


def _size(image: Image) -> str:
    height, width = image.size
    return f"{height}×{width}"
