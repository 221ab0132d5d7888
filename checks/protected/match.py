"""Pair each protected unit at base with what became of it at head, within one file (pure).

Units are matched by content, never by line number alone, and the original position comes
first: `lines.LineMap` says where the unit's lines went, and what sits there decides before
anything found elsewhere. So an edit in place blocks even when an identical protected copy
appears elsewhere in the same scope (under `if False:`, after a `return`), and when the original
"moves" while a replacement takes its place. Python (both sides parse), in rounds, each on what
the earlier left:

0. at the original position: the same tree ─► kept (or rewrapped, if its control flow changed),
   an edited protected statement ─► edited, the statement without its marker ─► unprotected
1. same syntax tree, same scope, anywhere ─► kept (or rewrapped)
2. same syntax tree, other scope ─► moved within the file
3. a protected unit with the same scope, kind and anchor ─► edited
4. an unprotected statement with the same tree or anchor ─► its marker was removed
5. nothing ─► gone (the caller then looks in the other changed files: a move)

Text (non-Python, or Python that does not parse on one side) is matched in `text_match`. Every
lookup is a dict or a bisect: near-linear in the file.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from gradgate.checks.protected.lines import LineMap
from gradgate.checks.protected.markers import Unit
from gradgate.checks.protected.python_units import PythonFile
from gradgate.checks.protected.statements import Statement


class Fate(StrEnum):
    KEPT = "kept"  # same statement, still protected, maybe reformatted or shifted
    REWRAPPED = "rewrapped"  # same statement, still protected, under other control flow
    MOVED = "moved"  # same statement, still protected, in another scope or file
    EDITED = "edited"  # still protected, but the statement changed
    UNPROTECTED = "unprotected"  # the statement is at head (maybe edited) without its marker
    GONE = "gone"  # nothing at head corresponds to it


@dataclass(frozen=True, slots=True)
class Pairing:
    base: Unit
    fate: Fate
    head: Unit | None = None  # where it is at head, for every fate but GONE


class Free:
    """Head units not paired yet, by each key a round looks them up with, and by position."""

    def __init__(self, units: Sequence[Unit], keys: Sequence[Callable[[Unit], Hashable]]):
        self.units = list(units)
        self.left = set(range(len(units)))
        self.tables = [self._table(key) for key in keys]
        self.cached: dict[tuple[int, Hashable], list[int]] = {}
        self.order = sorted(range(len(units)), key=lambda i: units[i].start)
        self.starts = [units[i].start for i in self.order]

    def _table(self, key: Callable[[Unit], Hashable]) -> dict[Hashable, list[int]]:
        table: dict[Hashable, list[int]] = {}  # each list in line order
        for i in sorted(range(len(self.units)), key=lambda i: self.units[i].start):
            unit = self.units[i]
            table.setdefault(key(unit), []).append(i)
        return table

    def take(self, table: int, key: Hashable) -> Unit | None:
        found = next((i for i in self.tables[table].get(key, ()) if i in self.left), None)
        return None if found is None else self.pop(found)

    def pop(self, i: int) -> Unit:
        self.left.discard(i)
        return self.units[i]

    def near(self, unit: Unit, first: int, last: int) -> list[int]:
        """Free units with the unit's tree or anchor (tables 1 and 2) starting on lines
        ``first..last``, by bisect in each table's line-ordered list."""
        found: set[int] = set()
        for table, key in ((1, _PY_KEYS[1](unit)), (2, _PY_KEYS[2](unit))):
            if key is None:
                continue
            group = self.tables[table].get(key, [])
            starts = self._starts(table, key, group)
            lo, hi = bisect.bisect_left(starts, first), bisect.bisect_right(starts, last)
            found.update(i for i in group[lo:hi] if i in self.left)
        return sorted(found)

    def _starts(self, table: int, key: Hashable, group: list[int]) -> list[int]:
        if (table, key) not in self.cached:
            self.cached[table, key] = [self.units[i].start for i in group]
        return self.cached[table, key]

    def within(self, first: int, last: int) -> list[int]:
        lo, hi = bisect.bisect_left(self.starts, first), bisect.bisect_right(self.starts, last)
        return [i for i in self.order[lo:hi] if i in self.left]

    def remaining(self) -> list[Unit]:
        return [u for i, u in enumerate(self.units) if i in self.left]


_PY_KEYS: tuple[Callable[[Unit], Hashable], ...] = (
    lambda u: (u.key, u.scope),
    lambda u: u.key,
    lambda u: (u.scope, u.kind, u.anchor) if u.anchor else None,
    lambda u: (u.scope, u.kind, u.anchor, u.context) if u.anchor else None,
)


def window(lines: LineMap, unit: Unit) -> tuple[int, int, int] | None:
    """(first, last, expected): the head lines near where the unit's lines went, if any."""
    span = lines.span(min(unit.marker_line, unit.start), unit.end)
    if span is None:
        return None
    expected = lines.expected(unit.start)
    size = unit.end - min(unit.marker_line, unit.start) + 1
    # As far as a reformat may have moved it; a whole rewritten file is no reason to look
    # everywhere (the later rounds do that, by index).
    reach = 20 + 2 * size + min(abs((span[1] - span[0] + 1) - size), 100)
    first, last = max(span[0], expected - reach), min(span[1], expected + reach)
    return (first, last, expected) if first <= last else None


def _kept(base: Unit, head: Unit) -> Pairing:
    return Pairing(base, Fate.KEPT if head.context == base.context else Fate.REWRAPPED, head)


def match_python(base: PythonFile, head: PythonFile) -> tuple[list[Pairing], list[Unit]]:
    """Pairings for every base unit, and the head units nothing at base accounts for."""
    lines = LineMap(base.lines, head.lines)
    free = Free(head.units, _PY_KEYS)
    done: dict[int, Pairing] = {}
    for index, unit in enumerate(base.units):
        near = window(lines, unit)
        if near is not None and (placed := _at_position(unit, head, free, near)) is not None:
            done[index] = placed
    for table, fate in enumerate((Fate.KEPT, Fate.MOVED, Fate.EDITED)):  # (table 3: above)
        for index, unit in enumerate(base.units):
            if index not in done and (found := free.take(table, _PY_KEYS[table](unit))):
                done[index] = (
                    _kept(unit, found) if fate is Fate.KEPT else Pairing(unit, fate, found)
                )
    for index, unit in enumerate(base.units):
        if index not in done:
            bare = head.unprotected(unit, same_scope=True)
            bare = bare or head.unprotected(unit, same_scope=False)
            done[index] = Pairing(unit, Fate.GONE if bare is None else Fate.UNPROTECTED, bare)
    return [done[i] for i in range(len(base.units))], free.remaining()


def _at_position(
    unit: Unit, head: PythonFile, free: Free, near: tuple[int, int, int]
) -> Pairing | None:
    """What sits where the unit's lines went decides, nearest the expected line first."""
    first, last, expected = near
    # Rank: the same control flow, then the same tree, then still protected, then nearest.
    ranked: list[tuple[bool, bool, bool, int, Unit | Statement, int]] = []
    for i in free.near(unit, first, last):
        u = head.units[i]
        if (u.scope, u.kind) == (unit.scope, unit.kind):
            moved = u.context != unit.context
            ranked.append((moved, u.key != unit.key, False, abs(u.start - expected), u, i))
    for s in head.near(unit, first, last):
        same = head.dump(s) == unit.key
        ranked.append((s.context != unit.context, not same, True, abs(s.start - expected), s, -1))
    if ranked:
        moved, _, bare, _, what, i = min(ranked, key=lambda r: r[:4])
        if moved and (edited := _same_place(unit, free)) is not None:
            # The statement left its control flow (a copy after a `return`, under `if False:`)
            # while a protected one with its anchor stays where it was: an edit in place.
            return Pairing(unit, Fate.EDITED, edited)
        if bare or not isinstance(what, Unit):
            assert isinstance(what, Statement)
            return Pairing(unit, Fate.UNPROTECTED, head.bare(what))
        free.pop(i)
        return _kept(unit, what) if what.key == unit.key else Pairing(unit, Fate.EDITED, what)
    # A protected statement of another kind where this one was, close by: an edit in place.
    reach = max(5, unit.end - unit.start + 1)
    close = [
        (abs(head.units[i].start - expected), i)
        for i in free.within(first, last)
        if head.units[i].scope == unit.scope and abs(head.units[i].start - expected) <= reach
    ]
    if close:
        return Pairing(unit, Fate.EDITED, free.pop(min(close)[1]))
    return None


def _same_place(unit: Unit, free: Free) -> Unit | None:
    """A free protected unit with this one's scope, kind, anchor and control flow."""
    if not unit.anchor:
        return None
    return free.take(3, (unit.scope, unit.kind, unit.anchor, unit.context))
