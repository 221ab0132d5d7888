"""The words of the `protected` check: a Finding per pairing, the notes, the summary (pure)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.protected.diffs import MAX_DIFF_LINES, diff, region_diff
from gradgate.checks.protected.markers import (
    Unit,
    comment_opener,
    compile_markers,
    marker_in,
    split_lines,
)
from gradgate.checks.protected.match import Fate, Pairing

CHANGED = "protected-line-changed"
REMOVED = "protection-removed"
DELETED = "protected-line-deleted"
MOVED = "protected-moved"
ADDED = "protection-added"
ZONE = "zone-touched"
SKIPPED = "protected-file-skipped"
AS_TEXT = "protected-parsed-as-text"
UNREADABLE = "protected-file-unreadable"
REWRAPPED = "protected-context-changed"
MARKER_KINDS = frozenset(
    {CHANGED, REMOVED, DELETED, MOVED, ADDED, AS_TEXT, SKIPPED, UNREADABLE, REWRAPPED}
)

_WHAT_TO_DO = (
    "Revert the change, or remove the protection in a separate reviewed PR (or ask an owner)."
)
_NAME_CHARS = 80  # of a statement's name in a message
_LISTED = 3  # paths or statements a message names before "and N more"
_DEFINES = {"FunctionDef": "def", "AsyncFunctionDef": "async def", "ClassDef": "class"}


def finding_for(
    pairing: Pairing, *, base_lines: Sequence[str], head_lines: Sequence[str] | None
) -> Finding | None:
    """``head_lines`` is None when the PR deleted the file the unit lived in."""
    base, head, fate = pairing.base, pairing.head, pairing.fate
    guard = f"{_named(base)} is protected by {_marker(base)}"
    if fate is Fate.KEPT or (fate is Fate.MOVED and head is None):
        return None
    if fate is Fate.REWRAPPED and head is not None:
        return Finding(
            kind=REWRAPPED,
            severity=Severity.WARNING,
            message=f"{guard}; it is unchanged, but it now runs {_under(head)} "
            f"(before: {_under(base)}). Check that it still runs when it must.",
            file=head.path,
            line=head.marker_line,
            details=diff(base, head) or None,
            revision="head",
        )
    if fate is Fate.MOVED and head is not None:
        return Finding(
            kind=MOVED,
            severity=Severity.NOTE,
            message=f"{guard}; it moved unchanged to {_code(head.where)} and is still "
            "protected there. Nothing to do unless the move itself needs review.",
            file=head.path,
            line=head.marker_line,
            revision="head",
        )
    if fate is Fate.EDITED and head is not None:
        moved = "" if head.path == base.path else f" (it is now at {_code(head.where)})"
        # A Python statement paired with a plain line (head no longer parses) diffs by region.
        same_shape = (base.kind == "line") == (head.kind == "line")
        return _blocking(
            CHANGED,
            base,
            f"{guard}; this PR changes it{moved}. {_WHAT_TO_DO}",
            diff(base, head) if same_shape else region_diff(base, base_lines, head_lines or []),
        )
    if fate is Fate.UNPROTECTED and head is not None:
        edited = "" if head.key == base.key else ", and the statement was changed"
        # Where only the own-line marker went, the statement moved up into its line: still here.
        here = head.path == base.path and head.start in (base.start, base.marker_line)
        where = "" if here else f" (it is now at {_code(f'{head.path}:{head.start}')})"
        return _blocking(
            REMOVED,
            base,
            f"The {_marker(base)} marker on {_named(base)} was removed{edited}{where}. "
            "Restore the marker; removing a protection needs its own reviewed PR (or an owner).",
            diff(base, head),
        )
    if head_lines is None:
        return deleted_file([base])
    return _blocking(
        CHANGED,
        base,
        f"{guard}; this PR changes or removes it. {_WHAT_TO_DO}",
        region_diff(base, base_lines, head_lines),
    )


def deleted_file(units: Sequence[Unit]) -> Finding:
    """One finding for a deleted file that held the protected ``units`` (in line order)."""
    path = units[0].path
    noun = _protected_noun(units)
    named = [f"{_code(statement_name(u))} at line {u.marker_line}" for u in units[:_LISTED]]
    more = len(units) - len(named)
    listed = _words([*named, f"{more} more"] if more else named)
    held = f"{len(units)} protected {noun}" if len(units) > 1 else f"a protected {noun[:-1]}"
    it, them = ("it", "the protection") if len(units) == 1 else ("them", "the protections")
    shown = [f"line {u.marker_line}: {statement_name(u)}" for u in units[:MAX_DIFF_LINES]]
    if len(units) > MAX_DIFF_LINES:
        shown.append(f"… and {len(units) - MAX_DIFF_LINES} more")
    return Finding(
        kind=DELETED,
        severity=Severity.BLOCKING,
        message=f"{_code(path)} held {held} ({listed}), and this PR deletes the file. Keep "
        f"{it} (moving {it} unchanged to another file is fine), or remove {them} in a separate "
        "reviewed PR (or ask an owner).",
        file=path,
        line=units[0].marker_line,
        details="\n".join(shown),
        details_lang="text",
        revision="base",
    )


def _protected_noun(units: Sequence[Unit]) -> str:
    return "lines" if all(u.kind == "line" for u in units) else "statements"


def statement_name(unit: Unit) -> str:
    """What a reader calls the protected statement: `def name`, `class Name`, or its first line
    of code (stripped, without its marker comment, ` …` when it goes on, cut to 80 characters)."""
    if unit.kind in _DEFINES and unit.anchor:
        return f"{_DEFINES[unit.kind]} {unit.anchor}"
    lines = split_lines(unit.text)
    at = unit.start - min(unit.marker_line, unit.start)
    line = lines[at] if 0 <= at < len(lines) else ""
    if unit.marker and not unit.own_line and unit.marker_line == unit.start:
        line = _without_marker(line, unit)
    name = line.strip() or unit.anchor or unit.kind
    if unit.end > unit.start:
        name += " …"
    return name if len(name) <= _NAME_CHARS else name[: _NAME_CHARS - 1] + "…"


def _without_marker(line: str, unit: Unit) -> str:
    """``line`` up to its marker comment: the first comment opener whose comment holds the
    marker (`lr = 6e-4  # max lr  # NO_REFAC` is `lr = 6e-4`)."""
    opener = comment_opener(unit.path) or "#"
    pattern = compile_markers([unit.marker])
    cut = next(
        (
            found.start()
            for found in re.finditer(re.escape(opener), line)
            if (found.start() == 0 or line[found.start() - 1].isspace())
            and marker_in(line[found.end() :], pattern, opener)
        ),
        None,
    )
    return line if cut is None else line[:cut]


def _named(unit: Unit) -> str:
    """The statement and where its marker is: `def f` (`a.py:3`)."""
    return f"{_code(statement_name(unit))} ({_code(unit.where)})"


def _marker(unit: Unit) -> str:
    """The marker as it is written in the file: `# NO_REFAC`, `// NO_REFAC` in C."""
    return _code(f"{comment_opener(unit.path) or '#'} {unit.marker}")


def code_span(value: object) -> str:
    """``value`` between backticks as CommonMark pairs them: a fence longer than any backtick
    run inside, so a file name holding a backtick cannot open or close a code span early."""
    text = str(value)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_code = code_span


def _under(unit: Unit) -> str:
    return f"under {unit.context}" if unit.context else "directly in its scope"


def added(unit: Unit) -> Finding:
    return Finding(
        kind=ADDED,
        severity=Severity.NOTE,
        message=f"New protection: {_marker(unit)} on {_named(unit)}; later changes to it will "
        "block.",
        file=unit.path,
        line=unit.marker_line,
        revision="head",
    )


def zone_touched(zone: str, paths: Sequence[str], owners: Sequence[str] = ()) -> Finding:
    """A note for a protected zone the PR touched; ``owners`` (from the zone's config) decide."""
    named = [_code(p) for p in paths[:_LISTED]]
    more = len(paths) - len(named)
    if more:
        files = _words([*named, f"{more} more {'file' if more == 1 else 'files'}"])
    else:
        files = _words(named)
    verb = "is" if len(paths) == 1 else "are"
    if owners:
        ask = f"ask an owner ({', '.join(_code(o) for o in owners)}) to review."
    else:
        them = "it" if len(paths) == 1 else "them"
        ask = f"review {them} with care (add `owners:` to the zone to name who decides)."
    return Finding(
        kind=ZONE,
        severity=Severity.NOTE,
        message=f"{files} {verb} in protected zone {_code(zone)}; {ask}",
        file=paths[0] if paths else None,
    )


def _words(items: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def summary(findings: Iterable[Finding], *, checked: int, files: int, advice: str = "") -> str:
    """``advice``: what the warnings about markers that protect nothing say, in a few words."""
    counts = Counter(f.kind for f in findings)
    blocking = [
        _count(counts[CHANGED], "protected line changed", "protected lines changed"),
        _count(counts[REMOVED], "protection removed", "protections removed"),
        _count(counts[DELETED], "protected file deleted", "protected files deleted"),
        _count(counts[UNREADABLE], "protected file unreadable", "protected files unreadable"),
    ]
    said = ", ".join(part for part in blocking if part)
    if said:
        return said[:140]
    moved = f"{counts[MOVED]} moved; " if counts[MOVED] else ""
    if counts[REWRAPPED]:
        moved += _count(counts[REWRAPPED], "under new control flow", "under new control flow")
        moved += "; "
    moved += f"{advice}; " if advice else ""
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


# -- a whole file the check could not compare as it is: skipped, compared as text because it does
# not parse, or unreadable where it held protected lines --------------------------------------


def skipped(path: str, why: str) -> Finding:
    return Finding(
        kind=SKIPPED,
        severity=Severity.NOTE,
        message=f"{code_span(path)} was not scanned for protected lines: {why}. Check it by hand.",
        file=path,
    )


def parsed_as_text(path: str, revision: str, error: str) -> Finding:
    return Finding(
        kind=AS_TEXT,
        severity=Severity.NOTE,
        message=f"{code_span(path)} does not parse as Python at {revision} ({error}); its "
        "protected lines were compared as text, so a pure reformat may show as a change.",
        file=path,
        revision=revision,
    )


def unreadable(path: str, revision: str, why: str, *, held: Unit | None) -> Finding:
    """A file that held protected lines at base (``held``: the first) and cannot be compared."""
    if held is None:  # the base itself cannot be read, but its bytes mention a marker
        what = f"{code_span(path)} mentions a marker at base, but {why} there"
    else:
        first = code_span(held.where)
        what = f"{code_span(path)} held protected lines at base (the first at {first}), and at "
        what += f"{revision} {why}"
    return Finding(
        kind=UNREADABLE,
        severity=Severity.BLOCKING,
        message=f"{what}, so gradgate cannot tell whether protected lines changed. Keep the "
        "file UTF-8 text under the size limit (not binary, a symlink or a submodule), or "
        "remove the protection in a separate reviewed PR (or ask an owner).",
        file=path,
        line=held.marker_line if held else None,
        revision="base",
    )
