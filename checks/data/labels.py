"""Targets at base against targets at head: a changed label or class-index mapping (pure).

A dataset's item often carries its target: an integer scalar beside the image (``output[1]``,
``output.label``). Read over all the indices the check reads, head's targets are compared with
base's as one mapping: a consistent renumbering ("base class 0 is head class 2") is named as
such, other changes by sample. A dataset's ``class_to_idx`` (or ``classes``), sent by the child,
is compared by class name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gradgate.checks.data.outputs import Difference, Output

SHOWN = 6  # samples or classes listed in one sentence


def is_target(output: Output) -> bool:
    """An integer scalar: a class index, not a measurement."""
    values, dtype = output.get("values"), str(output.get("dtype"))
    return (
        values is not None
        and len(values) == 1
        and output.get("shape") in ([], [1])
        and "int" in dtype
        and float(values[0]).is_integer()
    )


def target_change(
    samples: Sequence[tuple[str, Output, Output]],
) -> Difference | None:
    """``samples``: (which input, base's target, head's target) for one target output."""
    pairs = [(label, int(b["values"][0]), int(h["values"][0])) for label, b, h in samples]
    changed = [(label, b, h) for label, b, h in pairs if b != h]
    if not changed:
        return None
    count = f"{len(changed)} of {len(pairs)} sample{'s' if len(pairs) != 1 else ''}"
    mapping: dict[int, int] = {}
    for _label, b, h in pairs:
        mapping.setdefault(b, h)
    consistent = all(mapping[b] == h for _label, b, h in pairs)
    if len(pairs) > 1 and consistent and len(set(mapping.values())) == len(mapping):
        moved = [f"base {b} → head {h}" for b, h in sorted(mapping.items()) if b != h]
        shown = ", ".join(moved[:SHOWN]) + (", …" if len(moved) > SHOWN else "")
        return Difference("labels", f"class indices renumbered: {shown} ({count})")
    listed = [f"{label}: {b} → {h}" if label else f"{b} → {h}" for label, b, h in changed]
    shown = "; ".join(listed[:SHOWN]) + ("; …" if len(listed) > SHOWN else "")
    return Difference("labels", f"targets changed for {count} ({shown})")


def class_change(base: Mapping[str, int], head: Mapping[str, int]) -> Difference | None:
    """A dataset's class name → index mapping at base and at head."""
    said: list[str] = []
    for name in sorted(set(base) | set(head), key=lambda n: (base.get(n, head.get(n, 0)), n)):
        if name not in head:
            said.append(f"`{name}` removed (was {base[name]})")
        elif name not in base:
            said.append(f"`{name}` added ({head[name]})")
        elif base[name] != head[name]:
            said.append(f"`{name}` {base[name]} → {head[name]}")
    if not said:
        return None
    shown = ", ".join(said[:SHOWN]) + (", …" if len(said) > SHOWN else "")
    return Difference("labels", f"class-index mapping changed: {shown}")
