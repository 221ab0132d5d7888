"""The diffs a protected finding shows: a statement's base and head text, numbered as lines of
their files, or the region its base lines became at head (pure)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from gradgate.checks.protected.lines import LineMap
from gradgate.checks.protected.markers import Unit

MAX_DIFF_LINES = 40
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
_MAX_INPUT = 400  # lines of a statement difflib is given: its cost grows with the square


def diff(base: Unit, head: Unit) -> str:
    """A unified diff of the two statements, numbered as lines of their files."""
    shift = (min(base.marker_line, base.start) - 1, min(head.marker_line, head.start) - 1)
    lines = difflib.unified_diff(
        base.text.splitlines()[:_MAX_INPUT],
        head.text.splitlines()[:_MAX_INPUT],
        f"base/{base.path}",
        f"head/{head.path}",
        lineterm="",
    )
    return _cap([_HUNK.sub(lambda m: _renumber(m, shift), line) for line in lines])


def _renumber(hunk: re.Match[str], shift: tuple[int, int]) -> str:
    old, old_len, new, new_len = hunk.groups()
    return f"@@ -{int(old) + shift[0]}{old_len or ''} +{int(new) + shift[1]}{new_len or ''} @@"


def region_diff(base: Unit, base_lines: Sequence[str], head_lines: Sequence[str]) -> str:
    """The unit's lines (marker included) and the head lines they became, by the line map."""
    first, last = min(base.marker_line, base.start), base.end
    span = LineMap(base_lines, head_lines).span(first, last)
    old = base_lines[first - 1 : last]
    new = [] if span is None else head_lines[span[0] - 1 : span[1]]
    at = f"+{span[0]},{len(new)}" if span else "+0,0"
    out = [f"--- base/{base.path}", f"+++ head/{base.path}", f"@@ -{first},{len(old)} {at} @@"]
    out += [f"-{line}" for line in old] + [f"+{line}" for line in new]
    return _cap(out)


def _cap(lines: list[str]) -> str:
    if len(lines) <= MAX_DIFF_LINES:
        return "\n".join(lines)
    hidden = len(lines) - MAX_DIFF_LINES
    return "\n".join([*lines[:MAX_DIFF_LINES], f"… ({hidden} more lines)"])
