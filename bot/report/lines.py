"""The diff's changed lines that a report carries: per side, for the files its findings name (pure).

GitHub takes an inline review comment only on a line of the pull request's diff: a head line
(side RIGHT) or a deleted base line (side LEFT). The checks run in a child process, or in other
jobs, and the publisher sees only their report JSON; so the report carries the changed line
spans of the files its findings name, and the publisher decides from them where a comment goes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from gradgate.checks.base import CheckResult
from gradgate.checks.diff import ChangeStatus, FileChange, LineSpan

Side = Literal["LEFT", "RIGHT"]  # GitHub's names: LEFT the base side, RIGHT the head side
Spans = Mapping[str, tuple[LineSpan, ...]]


@dataclass(frozen=True, slots=True)
class DiffLines:
    """Changed line spans: ``head`` by head path in head line numbers, ``base`` by base path in
    base ones. ``renamed``: base path -> head path, for the files the PR renamed."""

    head: Spans = field(default_factory=dict)
    base: Spans = field(default_factory=dict)
    renamed: Mapping[str, str] = field(default_factory=dict)

    def changed(self, path: str, line: int, side: Side) -> bool:
        """``path`` as that side names the file."""
        spans = (self.head if side == "RIGHT" else self.base).get(path, ())
        return any(line in span for span in spans)

    def diff_path(self, base_path: str) -> str:
        """The name GitHub's diff gives a file, on either side: its head path where it has one."""
        return self.renamed.get(base_path, base_path)

    def as_json(self) -> dict[str, Any]:
        return {
            "head": {p: [[s.start, s.end] for s in spans] for p, spans in self.head.items()},
            "base": {p: [[s.start, s.end] for s in spans] for p, spans in self.base.items()},
            "renamed": dict(self.renamed),
        }


def diff_lines(changes: Iterable[FileChange], results: Iterable[CheckResult]) -> DiffLines:
    """The spans of the changed files that ``results``' findings name, on either side."""
    named: set[str] = set()
    for result in results:
        for f in result.findings:
            named.update(p for p in (f.file, f.head_file) if p is not None)
    head: dict[str, tuple[LineSpan, ...]] = {}
    base: dict[str, tuple[LineSpan, ...]] = {}
    renamed: dict[str, str] = {}
    for change in changes:
        if change.head_path in named and change.new_lines:
            head[change.head_path] = change.new_lines
        # A copy's source is not part of the diff (GitHub shows a copy as an added file).
        old = change.base_path if change.status is not ChangeStatus.COPIED else None
        if old is not None and old in named and change.old_lines:
            base[old] = change.old_lines
            if change.head_path is not None and change.head_path != old:
                renamed[old] = change.head_path
    return DiffLines(head=head, base=base, renamed=renamed)


def union(parts: Iterable[DiffLines | None]) -> DiffLines | None:
    """One DiffLines for several reports of the same diff (a fan-out's check jobs)."""
    head: dict[str, tuple[LineSpan, ...]] = {}
    base: dict[str, tuple[LineSpan, ...]] = {}
    renamed: dict[str, str] = {}
    seen = False
    for part in parts:
        if part is None:
            continue
        seen = True
        head.update(part.head)
        base.update(part.base)
        renamed.update(part.renamed)
    return DiffLines(head=head, base=base, renamed=renamed) if seen else None
