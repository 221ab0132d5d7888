"""Base's outputs against head's, for the same input and seeds: what changed, named (pure).

``compare(base, head, tolerance=...)`` takes the child's JSON for each revision (see
``child.probe``) and returns a Comparison: per output, the differences a reviewer acts on
(``differ``: channel order, layout, batch dimension, dtype, value range, normalization, flips
and rotations; ``labels``: targets and class indices), and which revisions gave different
outputs on two identically seeded calls, with the line that made them differ where known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gradgate.checks.data.differ import differences, equal
from gradgate.checks.data.labels import class_change, is_target, target_change
from gradgate.checks.data.outputs import Difference, Output, OutputChange, Site

__all__ = ["Comparison", "Difference", "OutputChange", "Site", "compare"]


@dataclass(frozen=True, slots=True)
class Comparison:
    base_form: str  # the input form each revision's transform took ("numpy", "pil", ...)
    head_form: str
    outputs: int  # outputs compared
    changes: tuple[OutputChange, ...]
    nondeterministic: Mapping[str, tuple[str, ...]]  # revision -> outputs that varied
    # revision -> the user's line where two seeded calls first differed, where the child found
    # it: {"file" (relative to the revision's root), "line", "code"}
    unseeded: Mapping[str, Site] = field(default_factory=dict)


def compare(base: Mapping[str, Any], head: Mapping[str, Any], *, tolerance: float) -> Comparison:
    base_out, head_out = _firsts(base), _firsts(head)
    changes: list[OutputChange] = []
    if base["form"] != head["form"]:
        words = f"the transform took {_form(base['form'])} at base, {_form(head['form'])} at head"
        changes.append(OutputChange("input", (Difference("input", words),)))
    targets = _targets(base, head)
    for name in sorted(set(base_out) | set(head_out)):
        if _group(name) in targets:
            continue
        if name not in head_out or name not in base_out:
            which = "no longer returns" if name not in head_out else "newly returns"
            changes.append(OutputChange(name, (Difference("outputs", f"head {which} it"),)))
            continue
        found = differences(
            base_out[name], head_out[name], tolerance=tolerance, source=head.get("input")
        )
        if found:
            changes.append(OutputChange(name, found))
    for group, samples in sorted(targets.items()):
        found_target = target_change(samples)
        if found_target is not None:
            changes.append(OutputChange(group, (found_target,)))
    classes = class_change(base.get("classes") or {}, head.get("classes") or {})
    if classes is not None:
        changes.append(OutputChange("class_to_idx", (classes,)))
    varied = {rev: _varied(runs, tolerance) for rev, runs in (("base", base), ("head", head))}
    return Comparison(
        base_form=str(base["form"]),
        head_form=str(head["form"]),
        outputs=len(set(base_out) & set(head_out)),
        changes=tuple(changes),
        nondeterministic={rev: names for rev, names in varied.items() if names},
        unseeded={
            rev: _site(value["unseeded"])
            for rev, value in (("base", base), ("head", head))
            if varied[rev] and isinstance(value.get("unseeded"), dict)
        },
    )


def _site(found: Mapping[str, Any]) -> Site:
    return Site(file=str(found["file"]), line=int(found["line"]), code=str(found.get("code", "")))


_FORMS = {
    "numpy": "a NumPy HWC uint8 array",
    "pil": "a PIL RGB image",
    "tensor": "a CHW uint8 tensor",
    "yours": "your inputs",
    "dataset": "your dataset's items",
}


def _form(form: str) -> str:
    return _FORMS.get(form, form)


def _labels(value: Mapping[str, Any]) -> list[str]:
    """Each input's name: "index 7" for a dataset's items, "input 1" for your inputs."""
    runs = value["runs"]
    given = value.get("labels")
    if isinstance(given, list) and len(given) == len(runs):
        return [str(label) for label in given]
    return [f"input {index}" for index in range(len(runs))]


def _named(value: Mapping[str, Any], which: int) -> dict[str, Output]:
    runs: Sequence[Sequence[Mapping[str, Output] | None]] = value["runs"]
    named: dict[str, Output] = {}
    for label, pair in zip(_labels(value), runs, strict=True):
        for name, output in (pair[which] or {}).items():
            named[name if len(runs) == 1 else f"{name} ({label})"] = output
    return named


def _firsts(value: Mapping[str, Any]) -> dict[str, Output]:
    return _named(value, 0)


def _group(name: str) -> str:
    return name.split(" (", 1)[0]


def _targets(
    base: Mapping[str, Any], head: Mapping[str, Any]
) -> dict[str, list[tuple[str, Output, Output]]]:
    """Outputs that are an integer target in every input at both revisions, by output name:
    (which input, base's, head's) for each input."""
    found: dict[str, list[tuple[str, Output, Output]]] = {}
    spoiled: set[str] = set()
    labels = _labels(head) if len(head["runs"]) == len(base["runs"]) else []
    for label, b_pair, h_pair in zip(labels, base["runs"], head["runs"], strict=False):
        b_out, h_out = b_pair[0], h_pair[0]
        for name in set(b_out) | set(h_out):
            b, h = b_out.get(name), h_out.get(name)
            if b is None or h is None or not (is_target(b) and is_target(h)):
                spoiled.add(name)
                continue
            found.setdefault(name, []).append((label if len(labels) > 1 else "", b, h))
    return {name: samples for name, samples in found.items() if name not in spoiled}


def _varied(value: Mapping[str, Any], tolerance: float) -> tuple[str, ...]:
    """Outputs that differed between two seeded calls; the child sends the second call's
    outputs only when they differ from the first's (else None)."""
    first, second = _named(value, 0), _named(value, 1)
    return tuple(
        name
        for name in first
        if name in second and not equal(first[name], second[name], tolerance=tolerance)
    )
