"""Which disagreements block: those the PR introduced (pure).

A disagreement found at head whose signature was not found at base is new: a value changed on
one side only, a key renamed, an import or file removed, a config that no longer parses. It
blocks. One that was already there is a note, so adopting gradgate on an old repository does
not start with a wall of red. Undocumented new keys, notes about docs that could not be read
in full, and files skipped for their size or for being binary, never block, with one exception:
a doc or config that was read at base and cannot be read at head. Its claims or values are
unknown at head, so any disagreement they hide would pass unseen; the PR broke it, so it blocks
(issue 18: one non-UTF-8 byte in README.md must not turn a real disagreement into a pass).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum

from gradgate.checks.base import Severity
from gradgate.checks.config_docs.compare import WHOLE_FILE, Disagreement
from gradgate.checks.config_docs.snapshot import Snapshot

_NEVER_BLOCK = frozenset({"undocumented", "skipped", "unclosed-fence", "block-unparsed"})


class Age(Enum):
    """Where a disagreement at head comes from."""

    BEFORE = "before"  # the same disagreement was there at base: "already so before this PR"
    NEW = "new"  # this PR introduced it
    BROKE = "broke"  # a doc or config read at base that this PR made unreadable


class Ages:
    """Tells each disagreement at head its Age, from what was found at base."""

    def __init__(
        self, found_at_base: Iterable[Disagreement], base: Snapshot, at_base: Mapping[str, str]
    ) -> None:
        self._signatures = frozenset(d.signature for d in found_at_base)
        self._base_files = base.files
        self._unread_at_base = {p.file for p in base.problems if p.kind in WHOLE_FILE}
        self._at_base = at_base  # head path -> base path, for files the PR moved

    def of(self, d: Disagreement) -> Age:
        if d.signature in self._signatures:
            return Age.BEFORE
        p = d.problem
        if p is not None and p.kind in WHOLE_FILE:
            old = self._at_base.get(p.file, p.file)
            if old in self._base_files and old not in self._unread_at_base:
                return Age.BROKE
        return Age.NEW


def severity(d: Disagreement, age: Age) -> Severity:
    if age is Age.BROKE:
        return Severity.BLOCKING
    if d.kind in _NEVER_BLOCK or age is Age.BEFORE:
        return Severity.NOTE
    if d.problem is not None and not d.problem.config:
        return Severity.NOTE  # a doc new at head that cannot be read claims nothing wrong
    return Severity.BLOCKING
