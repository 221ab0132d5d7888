"""The words of the `protected` check: a Finding per pairing, the notes, the summary (pure)."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.protected.markers import Unit
from gradgate.checks.protected.match import Fate, Pairing

CHANGED = "protected-line-changed"
REMOVED = "protection-removed"
DELETED = "protected-line-deleted"
MOVED = "protected-moved"
ADDED = "protection-added"
ZONE = "zone-touched"
SKIPPED = "protected-file-skipped"
AS_TEXT = "protected-parsed-as-text"
MARKER_KINDS = frozenset({CHANGED, REMOVED, DELETED, MOVED, ADDED, AS_TEXT, SKIPPED})

_WHAT_TO_DO = (
    "Revert the change, or remove the protection in a separate reviewed PR (or ask an owner)."
)
_MAX_DIFF_LINES = 40
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
_MAX_DIFF_FILE_LINES = 20_000  # above this a region diff costs more than it tells


def finding_for(
    pairing: Pairing, *, base_lines: Sequence[str], head_lines: Sequence[str] | None
) -> Finding | None:
    """``head_lines`` is None when the PR deleted the file the unit lived in."""
    base, head, fate = pairing.base, pairing.head, pairing.fate
    guard = f"`{base.where}` is protected by `{base.marker}`"
    if fate is Fate.KEPT or (fate is Fate.MOVED and head is None):
        return None
    if fate is Fate.MOVED and head is not None:
        return Finding(
            kind=MOVED,
            severity=Severity.NOTE,
            message=f"{guard}; the statement moved unchanged to `{head.where}` and is still "
            "protected there. Nothing to do unless the move itself needs review.",
            file=head.path,
            line=head.marker_line,
            revision="head",
        )
    if fate is Fate.EDITED and head is not None:
        moved = "" if head.path == base.path else f" (now at `{head.where}`)"
        # A Python statement paired with a plain line (head no longer parses) diffs by region.
        same_shape = (base.kind == "line") == (head.kind == "line")
        return _blocking(
            CHANGED,
            base,
            f"{guard} and this PR changes the statement it protects{moved}. {_WHAT_TO_DO}",
            _diff(base, head) if same_shape else _region_diff(base, base_lines, head_lines or []),
        )
    if fate is Fate.UNPROTECTED and head is not None:
        edited = "" if head.key == base.key else " and the statement it protected was changed"
        here = (head.path, head.start) == (base.path, base.start)
        where = "" if here else f" (the statement is now at `{head.path}:{head.start}`)"
        return _blocking(
            REMOVED,
            base,
            f"The `{base.marker}` marker at `{base.where}` was removed{edited}{where}. "
            "Restore the marker; removing a protection needs its own reviewed PR (or an owner).",
            _diff(base, head),
        )
    if head_lines is None:
        return _blocking(
            DELETED,
            base,
            f"{guard}, and this PR deletes `{base.path}`. Keep the statement (moving it "
            "unchanged to another file is fine), or remove the protection in a separate "
            "reviewed PR (or ask an owner).",
            _cap([f"-{line}" for line in base.text.splitlines()]),
        )
    return _blocking(
        CHANGED,
        base,
        f"{guard} and this PR changes or removes the statement it protects. {_WHAT_TO_DO}",
        _region_diff(base, base_lines, head_lines),
    )


def added(unit: Unit) -> Finding:
    return Finding(
        kind=ADDED,
        severity=Severity.NOTE,
        message=f"New protection: `{unit.marker}` at `{unit.where}`; later changes to the "
        "statement it marks will block.",
        file=unit.path,
        line=unit.marker_line,
        revision="head",
    )


def zone_touched(zone: str, paths: Sequence[str]) -> Finding:
    named = ", ".join(f"`{p}`" for p in paths[:3])
    more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
    verb = "is" if len(paths) == 1 else "are"
    return Finding(
        kind=ZONE,
        severity=Severity.NOTE,
        message=f"{named}{more} {verb} in protected zone `{zone}`; ask an owner to review.",
        file=paths[0] if paths else None,
    )


def skipped(path: str, why: str) -> Finding:
    return Finding(
        kind=SKIPPED,
        severity=Severity.NOTE,
        message=f"`{path}` was not scanned for protected lines: {why}. Check it by hand.",
        file=path,
    )


def parsed_as_text(path: str, revision: str, error: str) -> Finding:
    return Finding(
        kind=AS_TEXT,
        severity=Severity.NOTE,
        message=f"`{path}` does not parse as Python at {revision} ({error}); its protected "
        "lines were compared as text, so a pure reformat may show as a change.",
        file=path,
        revision=revision,
    )


def summary(findings: Iterable[Finding], *, checked: int, files: int) -> str:
    counts = Counter(f.kind for f in findings)
    blocking = [
        _count(counts[CHANGED], "protected line changed", "protected lines changed"),
        _count(counts[REMOVED], "protection removed", "protections removed"),
        _count(counts[DELETED], "protected line deleted", "protected lines deleted"),
    ]
    said = ", ".join(part for part in blocking if part)
    if said:
        return said[:140]
    moved = f"{counts[MOVED]} moved; " if counts[MOVED] else ""
    statements = _count(checked, "checked", "checked") or "0 checked"
    in_files = f"{files} file" if files == 1 else f"{files} files"
    return f"no protected line changed ({moved}{statements} in {in_files})"[:140]


def _count(n: int, one: str, many: str) -> str:
    return "" if n == 0 else f"{n} {one if n == 1 else many}"


def _blocking(kind: str, base: Unit, message: str, details: str) -> Finding:
    return Finding(
        kind=kind,
        severity=Severity.BLOCKING,
        message=message,
        file=base.path,
        line=base.marker_line,
        details=details or None,
        revision="base",
    )


def _diff(base: Unit, head: Unit) -> str:
    """A unified diff of the two statements, numbered as lines of their files."""
    shift = (min(base.marker_line, base.start) - 1, min(head.marker_line, head.start) - 1)
    lines = difflib.unified_diff(
        base.text.splitlines(),
        head.text.splitlines(),
        f"base/{base.path}",
        f"head/{head.path}",
        lineterm="",
    )
    return _cap([_HUNK.sub(lambda m: _renumber(m, shift), line) for line in lines])


def _renumber(hunk: re.Match[str], shift: tuple[int, int]) -> str:
    old, old_len, new, new_len = hunk.groups()
    return f"@@ -{int(old) + shift[0]}{old_len or ''} +{int(new) + shift[1]}{new_len or ''} @@"


def _region_diff(base: Unit, base_lines: Sequence[str], head_lines: Sequence[str]) -> str:
    """The hunks of the whole-file diff that touch the unit's lines (marker included)."""
    first, last = min(base.marker_line, base.start) - 1, base.end
    if max(len(base_lines), len(head_lines)) > _MAX_DIFF_FILE_LINES:
        return _cap([f"-{line}" for line in base_lines[first:last]])
    matcher = difflib.SequenceMatcher(None, base_lines, head_lines, autojunk=False)
    out = [f"--- base/{base.path}", f"+++ head/{base.path}"]
    for group in matcher.get_grouped_opcodes(2):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        if i2 <= first or i1 >= last:
            continue
        out.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(f" {line}" for line in base_lines[a1:a2])
                continue
            out.extend(f"-{line}" for line in base_lines[a1:a2])
            out.extend(f"+{line}" for line in head_lines[b1:b2])
    return _cap(out) if len(out) > 2 else ""


def _cap(lines: list[str]) -> str:
    if len(lines) <= _MAX_DIFF_LINES:
        return "\n".join(lines)
    hidden = len(lines) - _MAX_DIFF_LINES
    return "\n".join([*lines[:_MAX_DIFF_LINES], f"… ({hidden} more lines)"])
