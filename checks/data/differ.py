"""One output at base against the same output at head: equal, or what changed, named (pure).

``differences`` reads both as images where they look like one (``image``) and looks for the
channel order, layout, batch dimension, flip or rotation and per-channel scaling that turn
base's into head's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

from gradgate.checks.data.geometry import estimate, resampled
from gradgate.checks.data.geometry import words as geometry_words
from gradgate.checks.data.image import GEOMETRIES, Fit, Image, as_image, fit_within, flat
from gradgate.checks.data.outputs import Difference, Output


def equal(a: Output, b: Output | None, *, tolerance: float) -> bool:
    if b is None or a.get("dtype") != b.get("dtype") or a.get("shape") != b.get("shape"):
        return False
    if a.get("values") is None or b.get("values") is None:
        return a.get("repr") == b.get("repr")
    return _max_diff(a["values"], b["values"]) <= tolerance


def _max_diff(a: Sequence[float], b: Sequence[float]) -> float:
    return max((abs(x - y) for x, y in zip(a, b, strict=True)), default=0.0)


def differences(
    base: Output, head: Output, *, tolerance: float, source: Output | None = None
) -> tuple[Difference, ...]:
    """What changed from ``base`` to ``head``: empty when they are equal within ``tolerance``.
    ``source``: the input both were made from (the synthetic image), when known."""
    if equal(base, head, tolerance=tolerance):
        return ()
    found: list[Difference] = []
    if base.get("dtype") != head.get("dtype"):
        found.append(Difference("dtype", f"dtype {base.get('dtype')} → {head.get('dtype')}"))
    if base.get("values") is None or head.get("values") is None:
        if not found:
            words = f"{_kind(base)} → {_kind(head)}"
            found.append(Difference("values", words))
        return tuple(found)
    b_img = as_image(base["shape"], base["values"])
    h_img = as_image(head["shape"], head["values"])
    if b_img is not None and h_img is not None:
        match = _match(b_img, h_img, _threshold(head["values"], tolerance))
        if match is not None:
            named = _words(b_img, h_img, match)
            if match.order != tuple(range(len(match.order))) and _same_scaling(
                source, (b_img, base), (h_img, head), tolerance
            ):  # the same per-channel scaling, now applied to other channels: not a change
                named = tuple(d for d in named if d.kind not in ("normalization", "value-range"))
            return (*found, *named)
    if b_img is not None and h_img is not None and source is not None:
        # the synthetic input says where each pixel came from: a rotation, crop or resize
        warp = estimate(b_img, h_img)
        moved = None if warp is None else geometry_words(warp, b_img, h_img)
        if moved is not None:
            return (*found, Difference("geometry", moved))
        resized = b_img.size == h_img.size != tuple(source["shape"][:2])
        if warp is not None and resized and resampled(warp):  # same size, same place
            return (*found, Difference("geometry", _RESAMPLED.format(size=_size(b_img))))
    if base["shape"] != head["shape"]:
        words = f"shape {_shape(base['shape'])} → {_shape(head['shape'])}"
        found.append(Difference("shape", words))
    else:
        most = _max_diff(base["values"], head["values"])
        if most > tolerance:
            words = f"values differ by up to {most:.3g} (tolerance {tolerance:g})"
            found.append(Difference("values", words))
    return tuple(found)


_RESAMPLED = (
    "head's image is resized to the same {size} and sits in the same place, but its pixels "
    "differ: the resize interpolation (or antialiasing) changed"
)


def _size(image: Image) -> str:
    height, width = image.size
    return f"{height}×{width}"


def _kind(output: Output) -> str:
    return str(output.get("repr") or output.get("kind"))


def _shape(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ")"


def _threshold(values: Sequence[float], tolerance: float) -> float:
    spread = (max(values) - min(values)) if values else 0.0
    return max(tolerance, 1e-3 * spread)


@dataclass(frozen=True, slots=True)
class Match:
    """head's channel i ≈ fits[i] of base's channel order[i], after ``geometry``."""

    geometry: str
    order: tuple[int, ...]
    fits: tuple[Fit, ...]


def _match(base: Image, head: Image, threshold: float) -> Match | None:
    """The channel order, geometry and per-channel affine map that turn base's image into
    head's within ``threshold``; None when none does. Each channel pair is fitted at most once
    per geometry, and only while its order is still possible; a fit is tried on a sample of
    the pixels first, so the pairs that do not match cost little (outputs of 224×224 pixels)."""
    count = len(base.channels)
    if count != len(head.channels):
        return None
    targets = [flat(plane) for plane in head.channels]
    for geometry, move in GEOMETRIES:
        moved = [move(plane) for plane in base.channels]
        if (len(moved[0]), len(moved[0][0])) != head.size:
            continue
        sources = [flat(plane) for plane in moved]
        fits: dict[tuple[int, int], Fit | None] = {}
        for order in permutations(range(count)):  # the identity first
            chosen = _fits(sources, targets, order, threshold, fits)
            if chosen is not None:
                return Match(geometry, order, chosen)
    return None


def _fits(
    sources: Sequence[Sequence[float]],
    targets: Sequence[Sequence[float]],
    order: tuple[int, ...],
    threshold: float,
    cache: dict[tuple[int, int], Fit | None],
) -> tuple[Fit, ...] | None:
    """Head channel i from base channel order[i], each within ``threshold``; None at the
    first that is not (the pairs fitted are kept in ``cache``)."""
    chosen: list[Fit] = []
    for i, j in enumerate(order):
        if (i, j) not in cache:
            cache[i, j] = fit_within(sources[j], targets[i], threshold)
        found = cache[i, j]
        if found is None or found.error > threshold:
            return None
        chosen.append(found)
    return tuple(chosen)


def _by_source(
    source: Image, output: tuple[Image, Output], tolerance: float
) -> dict[int, Fit] | None:
    image, values = output[0], output[1]["values"]
    match = _match(source, image, _threshold(values, tolerance))
    if match is None:
        return None
    return dict(enumerate(match.fits))


def _same_scaling(
    source: Output | None,
    base: tuple[Image, Output],
    head: tuple[Image, Output],
    tolerance: float,
) -> bool:
    """Does each output channel get the same scale and offset from its input channel at base
    and at head (a per-channel normalization that stayed, whichever channel now feeds it)?
    ``base`` and ``head``: each output as an image, and as sent."""
    image = None if source is None else as_image(source["shape"], source["values"])
    if image is None:
        return False
    at_base = _by_source(image, base, tolerance)
    at_head = _by_source(image, head, tolerance)
    if at_base is None or at_head is None or set(at_base) != set(at_head):
        return False
    return all(
        abs(at_base[k].scale / at_head[k].scale - 1) < 1e-3
        and abs(at_base[k].offset - at_head[k].offset) <= 1e-3 * max(1.0, abs(at_head[k].offset))
        for k in at_base
    )


def _words(base: Image, head: Image, match: Match) -> tuple[Difference, ...]:
    geometry, order, fits = match.geometry, match.order, match.fits
    found: list[Difference] = []
    if base.batch != head.batch:
        verb = "adds" if head.batch else "removes"
        found.append(Difference("batch", f"head {verb} a leading batch dimension"))
    if base.layout != head.layout:
        found.append(Difference("layout", f"layout {base.layout} → {head.layout}"))
    moved = [(i, j) for i, j in enumerate(order) if i != j]
    if moved:
        words = ", ".join(f"head channel {i} is base channel {j}" for i, j in moved)
        if tuple(order) == (2, 1, 0):  # a swap: naming one half says it
            words = "head channel 0 is base channel 2: BGR ↔ RGB (channels 0 and 2 swapped)"
        found.append(Difference("channel-order", words))
    if geometry:
        found.append(Difference("geometry", f"head's image is base's {geometry}"))
    scaling = _scaling(fits)
    if scaling is not None:
        found.append(scaling)
    return tuple(found)


def _scaling(fits: Sequence[Fit]) -> Difference | None:
    scales = [f.scale for f in fits]
    offsets = [f.offset for f in fits]
    if all(abs(s - 1) < 1e-4 for s in scales) and all(abs(o) < 1e-4 for o in offsets):
        return None
    same = all(abs(s / scales[0] - 1) < 1e-3 for s in scales)
    if same and all(abs(o) < 1e-3 * max(1.0, 1 / scales[0]) for o in offsets):
        scale = scales[0]
        if abs(scale * 255 - 1) < 1e-3:
            return Difference("value-range", "value range 0–255 → 0–1 (divided by 255)")
        if abs(scale / 255 - 1) < 1e-3:
            return Difference("value-range", "value range 0–1 → 0–255 (multiplied by 255)")
        return Difference("value-range", f"values scaled by {scale:.4g}")
    means = ", ".join(f"{-o / s:.4g}" for o, s in zip(offsets, scales, strict=True))
    stds = ", ".join(f"{1 / s:.4g}" for s in scales)
    words = (
        "normalization changed: head ≈ (base − mean) / std per channel, with mean "
        f"({means}) and std ({stds}) in base's units"
    )
    return Difference("normalization", words)
