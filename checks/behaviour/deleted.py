"""Where a pure deletion is at head: the line a finding about deleted code points at (pure).

A PR that only deletes lines (a causal mask's `masked_fill`, a residual's `x +` line) has no
changed line at head (``checks.diff``: a pure deletion has no span on that side), so a finding
about the module would point at the class, saying nothing changed there. Here each deletion
gets the head line that now stands where the deleted lines were (the one after them, else the
one before), added to the PR's changed lines for locating findings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from difflib import SequenceMatcher

from gradgate.checks.diff import LineSpan
from gradgate.checks.model.lines import PullDiff


def deletion_lines(old: bytes, new: bytes) -> tuple[LineSpan, ...]:
    """The head line at each run of deleted lines between ``old`` and ``new``."""
    before = old.decode("utf-8", "replace").splitlines()
    after = new.decode("utf-8", "replace").splitlines()
    found = []
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag == "delete" and after:
            line = j1 + 1 if j1 < len(after) else j1
            found.append(LineSpan(line, line))
    return tuple(found)


def with_deletions(diff: PullDiff, files: Iterable[tuple[str, bytes, bytes]]) -> PullDiff:
    """``diff`` whose changed lines also hold each file's deletion lines; ``files``: (head
    path, base bytes, head bytes) of the changed files that exist at both revisions."""
    lines = dict(diff.head_lines)
    for path, old, new in files:
        extra = deletion_lines(old, new)
        if extra:
            lines[path] = tuple(sorted({*lines.get(path, ()), *extra}, key=lambda s: s.start))
    return replace(diff, head_lines=lines)
