"""Pair each protected unit at base with what became of it at head, within one file (pure).

Units are matched by content, never by line number, so edits elsewhere that only shift lines
never count. Python (both sides parse) is matched in rounds, each on what the earlier left:

1. same syntax tree, same scope (``Class.method``), in order ─► kept (reformat or shift)
2. same syntax tree, other scope ─► moved within the file
3. a protected unit with the same scope, kind and anchor ─► edited
4. an unprotected statement with the same tree or anchor ─► its marker was removed
5. nothing ─► gone (the caller then looks in the other changed files: a move)

Text (non-Python, or Python that does not parse on one side) looks for the unit's lines, with
marker comments dropped and whitespace collapsed, as a contiguous block at head.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from gradgate.checks.protected.markers import Unit, code_of, split_lines
from gradgate.checks.protected.python_units import PythonFile


class Fate(StrEnum):
    KEPT = "kept"  # same statement, still protected, maybe reformatted or shifted
    MOVED = "moved"  # same statement, still protected, in another scope or file
    EDITED = "edited"  # still protected, but the statement changed
    UNPROTECTED = "unprotected"  # the statement is at head (maybe edited) without its marker
    GONE = "gone"  # nothing at head corresponds to it


@dataclass(frozen=True, slots=True)
class Pairing:
    base: Unit
    fate: Fate
    head: Unit | None = None  # where it is at head, for every fate but GONE


def match_python(base: PythonFile, head: PythonFile) -> tuple[list[Pairing], list[Unit]]:
    """Pairings for every base unit, and the head units nothing at base accounts for."""
    free = list(head.units)
    done: dict[int, Pairing] = {}
    rounds: tuple[tuple[Fate, Callable[[Unit, Unit], bool]], ...] = (
        (Fate.KEPT, _same_tree_same_scope),
        (Fate.MOVED, _same_tree),
        (Fate.EDITED, _same_anchor),
    )
    for fate, same in rounds:
        for index, unit in enumerate(base.units):
            if index not in done and (found := _take(free, unit, same)):
                done[index] = Pairing(unit, fate, found)
    for index, unit in enumerate(base.units):
        if index not in done:
            bare = head.unprotected(unit, same_scope=True)
            bare = bare or head.unprotected(unit, same_scope=False)
            fate = Fate.GONE if bare is None else Fate.UNPROTECTED
            done[index] = Pairing(unit, fate, bare)
    pairings = [done[i] for i in range(len(base.units))]
    return _pair_by_position(pairings, free, base.lines, head.lines)


def match_text(
    base_units: Sequence[Unit],
    head_units: Sequence[Unit],
    lines: tuple[Sequence[str], Sequence[str]],
    head_path: str,
    pattern: re.Pattern[str],
    opener: str,
) -> tuple[list[Pairing], list[Unit]]:
    """``lines`` are the file's lines at base and at head; ``head_units`` those found at head."""
    base_lines, head_lines = lines
    numbered = enumerate(head_lines, start=1)
    codes = [(n, c) for n, line in numbered if (c := code_of(line, pattern, opener))]
    used: set[int] = set()
    pairings: list[Pairing] = []
    for unit in base_units:
        block = [c for line in split_lines(unit.text) if (c := code_of(line, pattern, opener))]
        regions = _occurrences(codes, block)
        guards = next((g for r in regions if (g := _guards(head_units, r))), [])
        if guards:
            used.update(guards)
            pairings.append(Pairing(unit, Fate.KEPT, head_units[guards[0]]))
        elif regions:
            bare = _bare(unit, head_path, head_lines, regions[0])
            pairings.append(Pairing(unit, Fate.UNPROTECTED, bare))
        elif unit.anchor and (i := _index(head_units, used, unit.anchor)) is not None:
            used.add(i)
            pairings.append(Pairing(unit, Fate.EDITED, head_units[i]))
        else:
            pairings.append(Pairing(unit, Fate.GONE))
    free = [u for i, u in enumerate(head_units) if i not in used]
    return _pair_by_position(pairings, free, base_lines, head_lines)


def _pair_by_position(
    pairings: list[Pairing], free: list[Unit], base_lines: Sequence[str], head_lines: Sequence[str]
) -> tuple[list[Pairing], list[Unit]]:
    """Last resort for units nothing else matched: a still-protected head unit whose marker sits
    where the line diff puts the base marker (`x = f()  # KEEP` ─► `f()  # KEEP`) is an edit."""
    gone = [i for i, p in enumerate(pairings) if p.fate is Fate.GONE]
    if not gone or not free:
        return pairings, free
    matcher = difflib.SequenceMatcher(None, base_lines, head_lines, autojunk=False)
    opcodes = matcher.get_opcodes()
    for index in gone:
        span = _head_span(opcodes, pairings[index].base.marker_line)
        found = next((u for u in free if span and span[0] <= u.marker_line <= span[1]), None)
        if found is not None:
            free.remove(found)
            pairings[index] = Pairing(pairings[index].base, Fate.EDITED, found)
    return pairings, free


def _head_span(
    opcodes: Sequence[tuple[str, int, int, int, int]], line: int
) -> tuple[int, int] | None:
    """The head lines (1-based, inclusive) that base ``line`` became, by the line diff."""
    for tag, i1, i2, j1, j2 in opcodes:
        if i1 < line <= i2:
            return (j1 + line - i1,) * 2 if tag == "equal" else (j1 + 1, j2)
    return None


def _take(free: list[Unit], base: Unit, same: Callable[[Unit, Unit], bool]) -> Unit | None:
    for position, unit in enumerate(free):
        if same(base, unit):
            return free.pop(position)
    return None


def _same_tree_same_scope(base: Unit, head: Unit) -> bool:
    return head.key == base.key and head.scope == base.scope


def _same_tree(base: Unit, head: Unit) -> bool:
    return head.key == base.key


def _same_anchor(base: Unit, head: Unit) -> bool:
    same = (head.scope, head.kind, head.anchor) == (base.scope, base.kind, base.anchor)
    return bool(base.anchor) and same


def _occurrences(codes: Sequence[tuple[int, str]], block: Sequence[str]) -> list[tuple[int, int]]:
    """Head line ranges (first, last) where ``block`` appears as consecutive code lines."""
    if not block:
        return []
    width = len(block)
    return [
        (codes[p][0], codes[p + width - 1][0])
        for p in range(len(codes) - width + 1)
        if codes[p][1] == block[0] and [c for _, c in codes[p : p + width]] == list(block)
    ]


def _guards(head_units: Sequence[Unit], region: tuple[int, int]) -> list[int]:
    return [i for i, u in enumerate(head_units) if region[0] <= u.start <= region[1]]


def _index(head_units: Sequence[Unit], used: set[int], anchor: str) -> int | None:
    return next((i for i, u in enumerate(head_units) if i not in used and u.anchor == anchor), None)


def _bare(unit: Unit, path: str, head_lines: Sequence[str], region: tuple[int, int]) -> Unit:
    first, last = region
    return Unit(
        path=path,
        marker="",
        marker_line=first,
        own_line=False,
        start=first,
        end=last,
        scope=unit.scope,
        kind=unit.kind,
        anchor=unit.anchor,
        key=unit.key,
        text="\n".join(head_lines[first - 1 : last]),
    )
