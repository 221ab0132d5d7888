"""Pair protected units of a text file (or of Python that does not parse) base to head (pure).

A unit's code lines (comments dropped, whitespace collapsed) are looked for as a contiguous
block at head, at the original position first (`lines.LineMap`), then nearest it elsewhere:
found still protected ─► kept, found without its marker ─► unprotected, a protected line with
its anchor (`lr` of `lr: 0.1`) where it was ─► edited, else by anchor anywhere, else gone.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence

from gradgate.checks.protected.lines import LineMap
from gradgate.checks.protected.markers import Unit, code_of, split_lines
from gradgate.checks.protected.match import Fate, Free, Pairing, window

_NEAREST = 64  # occurrences of a block tried, nearest the original position first


def match_text(
    base_units: Sequence[Unit],
    head_units: Sequence[Unit],
    lines: tuple[Sequence[str], Sequence[str]],
    bare: Callable[[Unit, tuple[int, int]], Unit],
    pattern: re.Pattern[str],
    opener: str | None,
) -> tuple[list[Pairing], list[Unit]]:
    """``lines`` are the file's lines at base and at head; ``head_units`` those found at head;
    ``bare(unit, (first, last))`` makes the unprotected head unit for a block found there."""
    base_lines, head_lines = lines
    line_map = LineMap(base_lines, head_lines)
    blocks = _Blocks(head_lines, pattern, opener)
    free = Free(head_units, (lambda u: u.anchor or None,))
    by_start = {u.start: i for i, u in enumerate(head_units)}
    pairings: list[Pairing] = []
    for unit in base_units:
        block = blocks.block_of(unit)
        near = window(line_map, unit)
        expected = near[2] if near else line_map.expected(unit.start)
        regions = blocks.find(block, expected)
        here = [r for r in regions if near is not None and near[0] <= r[0] <= near[1]]
        pairings.append(_text_fate(unit, here, free, by_start, bare, near, expected))
        if pairings[-1].fate is Fate.GONE:  # not where it was: anywhere else in the file
            pairings[-1] = _text_fate(unit, regions, free, by_start, bare, None, expected)
    return pairings, free.remaining()


def _text_fate(
    unit: Unit,
    regions: list[tuple[int, int]],
    free: Free,
    by_start: dict[int, int],
    bare: Callable[[Unit, tuple[int, int]], Unit],
    near: tuple[int, int, int] | None,
    expected: int,
) -> Pairing:
    """The unit's block still protected, then unprotected, in ``regions``; then (at the
    original position, ``near``) a protected line edited in place; then by anchor."""
    for first, _ in regions:
        if by_start.get(first, -1) in free.left:
            return Pairing(unit, Fate.KEPT, free.pop(by_start[first]))
    for first, last in regions:
        if first not in by_start:
            return Pairing(unit, Fate.UNPROTECTED, bare(unit, (first, last)))
    if near is None:
        found = free.take(0, unit.anchor) if unit.anchor else None
        return Pairing(unit, Fate.GONE) if found is None else Pairing(unit, Fate.EDITED, found)
    placed = free.within(near[0], near[1])
    same = [i for i in placed if unit.anchor and free.units[i].anchor == unit.anchor]
    reach = max(5, unit.end - unit.start + 1)
    close = [i for i in placed if abs(free.units[i].start - expected) <= reach]
    if same or close:
        nearest = min(same or close, key=lambda i: abs(free.units[i].start - expected))
        return Pairing(unit, Fate.EDITED, free.pop(nearest))
    return Pairing(unit, Fate.GONE)


class _Blocks:
    """A file's code lines (comments and blank lines left out), indexed by their text."""

    def __init__(self, lines: Sequence[str], pattern: re.Pattern[str], opener: str | None):
        self.pattern, self.opener = pattern, opener
        self.codes = [
            (n, code) for n, line in enumerate(lines, start=1) if (code := self._code(line))
        ]
        self.numbers = [n for n, _ in self.codes]
        self.at: dict[str, list[int]] = {}
        for position, (_, code) in enumerate(self.codes):
            self.at.setdefault(code, []).append(position)

    def _code(self, line: str) -> str:
        opener = self.opener
        code = code_of(line, self.pattern, opener) if opener else " ".join(line.split())
        return "" if opener and code.startswith(opener) else code

    def block_of(self, unit: Unit) -> list[str]:
        """The unit's code lines as they must appear at head: its text, comments left out."""
        return [code for line in split_lines(unit.text) if (code := self._code(line))]

    def find(self, block: Sequence[str], expected: int) -> list[tuple[int, int]]:
        """Line ranges (first, last) where ``block`` occurs, nearest ``expected`` first; at most
        _NEAREST are tried (beyond, a protected block is reported changed, never passed)."""
        starts = self.at.get(block[0], []) if block else []
        if not starts:
            return []
        middle = bisect.bisect_left(starts, bisect.bisect_left(self.numbers, expected))
        tried = sorted(
            starts[max(0, middle - _NEAREST // 2) : middle + _NEAREST // 2],
            key=lambda p: abs(self.codes[p][0] - expected),
        )
        width = len(block)
        return [
            (self.codes[p][0], self.codes[p + width - 1][0])
            for p in tried
            if [c for _, c in self.codes[p : p + width]] == list(block)
        ]
