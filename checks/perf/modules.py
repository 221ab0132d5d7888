"""Pure: each top-level module's forward time at base and head -> the modules that slowed.

Each child sends the median time per forward pass of each top-level module; a module's time at
a revision is the median over the rounds. A module slowed when head/base is above the check's
``max_slowdown`` *and* the time it adds is at least ``SHARE`` of the whole forward's (at base
or at head, whichever is longer): a 20 µs ReLU that takes 30 µs in one round is noise, not
news. A module new at head counts by its share.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SHARE = 0.05  # of the longer forward's time (the sum over its top-level modules)
SHOWN = 8  # the report's chart stays readable


@dataclass(frozen=True, slots=True)
class ModuleTime:
    name: str
    base_s: float | None  # None: no such module at base
    head_s: float


def slowed(
    base: Mapping[str, Sequence[float]],
    head: Mapping[str, Sequence[float]],
    *,
    max_slowdown: float,
) -> tuple[ModuleTime, ...]:
    """The top-level modules that slowed, the largest added time first (at most ``SHOWN``)."""
    base_s = {name: statistics.median(found) for name, found in base.items() if found}
    head_s = {name: statistics.median(found) for name, found in head.items() if found}
    floor = SHARE * max(sum(base_s.values()), sum(head_s.values()))
    found = []
    for name, after in head_s.items():
        before = base_s.get(name)
        added = after - (before or 0.0)
        if added <= floor or floor <= 0:
            continue
        if before is None or after > max_slowdown * before:
            found.append(ModuleTime(name, before, after))
    found.sort(key=lambda m: m.head_s - (m.base_s or 0.0), reverse=True)
    return tuple(found[:SHOWN])
