"""Value types that describe a diff: made by the git adapter, read by the plan and the checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ChangeStatus(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"
    TYPE_CHANGED = "type-changed"


@dataclass(frozen=True, slots=True)
class LineSpan:
    """Lines ``start``..``end`` inclusive, 1-based; a pure deletion has no span on that side."""

    start: int
    end: int

    def __contains__(self, line: object) -> bool:
        return isinstance(line, int) and self.start <= line <= self.end


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file of the diff ``merge-base(base, head)..head``.

    ``path`` is the head-side path (for a deleted file, the path it had at base);
    ``old_path`` is the base-side path and differs from ``path`` only for renames and copies.
    ``old_lines``/``new_lines`` are the changed line spans on each side (empty for binary files,
    or when only names were asked for).
    """

    path: str
    status: ChangeStatus
    old_path: str | None = None
    old_lines: tuple[LineSpan, ...] = ()
    new_lines: tuple[LineSpan, ...] = ()
    binary: bool = False
    submodule: bool = False
    symlink: bool = False
    # git's modes on each side ("100644" a file, "120000" a symlink, "160000" a submodule,
    # "000000" absent); "" when not known. Detail for checks that must not trust `binary` or
    # `symlink` alone; not part of what makes two changes equal.
    old_mode: str = field(default="", compare=False)
    new_mode: str = field(default="", compare=False)

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path this change touches: a rename counts under both its old and new path."""
        if self.old_path is not None and self.old_path != self.path:
            return (self.old_path, self.path)
        return (self.path,)

    @property
    def base_path(self) -> str | None:
        """Where the file lived at base, or None if it did not exist there."""
        if self.status is ChangeStatus.ADDED:
            return None
        return self.old_path if self.old_path is not None else self.path

    @property
    def head_path(self) -> str | None:
        """Where the file lives at head, or None if the PR deleted it."""
        if self.status is ChangeStatus.DELETED:
            return None
        return self.path
