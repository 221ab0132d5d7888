"""One changed file of the `protected` check: read both revisions, find and pair its units.

A side is text only when gradgate can compare it: a regular file (not a symlink or submodule),
under the size limit, UTF-8 by its bytes (no NUL anywhere; git's own test looks at 8,000 bytes
and a PR's `.gitattributes` can change git's mind) and, for Python, by its `coding:` line too.
Anything else is `Unreadable`, with the reason in words. Python goes through `python_units` and
`match_python`; other text, and Python that does not parse on one side, through `markers` and
`match_text` (with a note saying so).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from gradgate.checks.base import Finding
from gradgate.checks.context import RevisionSource
from gradgate.checks.protected.findings import parsed_as_text
from gradgate.checks.protected.markers import (
    Marked,
    MarkerComment,
    Mention,
    Unit,
    comment_opener,
    is_python,
    split_lines,
    text_marked,
)
from gradgate.checks.protected.match import Fate, Pairing, match_python
from gradgate.checks.protected.python_units import PythonFile, parse_python
from gradgate.checks.protected.text_match import match_text

MAX_BYTES = 2 * 1024 * 1024
_NOT_PYTHON = (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError)
_NOT_A_FILE = {"120000": "a symbolic link", "160000": "a submodule"}
_UTF8 = ("utf-8", "utf-8-sig")


@dataclass(frozen=True, slots=True)
class Side:
    """One revision of a changed file as the check sees it."""

    path: str | None  # None: the file does not exist on this side
    text: str | None = None  # set when the side can be compared
    unreadable: str | None = None  # why it cannot be, in words ("it is binary")
    marked: bool = False  # its bytes mention a marker (maybe not as a comment)
    binary: bool = False  # a NUL byte: never text, so a marker in it is no comment


@dataclass(slots=True)
class FileScan:
    """One changed file after in-file matching."""

    base_lines: list[str]
    head_lines: list[str] | None  # None: the PR deleted the file
    pairings: list[Pairing]
    new: list[Unit]  # protected at head, unaccounted for at base
    head_py: PythonFile | None
    unused: list[MarkerComment]  # markers at head that protect nothing
    mentions: list[Mention]  # marker words in head comments that are no marker


def read_side(
    source: RevisionSource, revision: str, path: str | None, mode: str, needles: tuple[bytes, ...]
) -> Side:
    """``mode``: git's mode of the file on this side ("" when not known)."""
    if path is None or mode == "000000":
        return Side(None)
    if mode in _NOT_A_FILE:
        return Side(path, unreadable=f"it is {_NOT_A_FILE[mode]}")
    data = source.read(revision, path)
    if data is None:
        return Side(None)
    marked = any(needle in data for needle in needles)
    if len(data) > MAX_BYTES:
        size = f"{len(data) / 2**20:.1f} MB"
        why = f"it is {size}, over the {MAX_BYTES // 2**20} MB limit"
        return Side(path, unreadable=why, marked=marked)
    if b"\0" in data:
        why = "it is binary (it holds a NUL byte)"
        return Side(path, unreadable=why, marked=marked, binary=True)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return Side(path, unreadable=f"it is not UTF-8 text (byte {error.start})", marked=marked)
    if is_python(path) and (cookie := _declared(data)) is not None:
        return Side(path, unreadable=cookie, marked=marked)
    return Side(path, text=text, marked=marked)


def _declared(data: bytes) -> str | None:
    """Why Python would not read ``data`` as the UTF-8 text gradgate compares, if it would not:
    a `coding:` line naming another encoding (UTF-7 can hide a line break in a comment)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return "its `coding:` line names an encoding Python does not know"
    if encoding in _UTF8:
        return None
    return f"its `coding:` line declares {encoding}, and only UTF-8 is compared"


def scan_file(
    base: tuple[str, str] | None,
    head: tuple[str, str] | None,
    pattern: re.Pattern[str],
    notes: list[Finding],
) -> FileScan:
    sides = {"base": base, "head": head}
    parsed: dict[str, PythonFile] = {}
    failed: dict[str, str] = {}
    if all(is_python(side[0]) for side in sides.values() if side):
        for label, side in sides.items():
            if side is not None:
                try:
                    parsed[label] = parse_python(side[0], side[1], pattern)
                except _NOT_PYTHON as err:
                    failed[label] = _why(err)
    base_lines = split_lines(base[1]) if base else []
    head_lines = split_lines(head[1]) if head else None
    if parsed and not failed:
        base_py, head_py = parsed.get("base"), parsed.get("head")
        if base_py is not None and head_py is not None:
            pairings, new = match_python(base_py, head_py)
        else:
            pairings = [Pairing(u, Fate.GONE) for u in (base_py.units if base_py else [])]
            new = list(head_py.units) if head_py else []
        unused, mentions = (head_py.unused, head_py.mentions) if head_py else ([], [])
        return FileScan(base_lines, head_lines, pairings, new, head_py, unused, mentions)

    opener = comment_opener((head or base or ("", ""))[0])
    base_units = _marked(base, parsed.get("base"), pattern, opener).units
    head_marked = _marked(head, parsed.get("head"), pattern, opener)
    head_units = head_marked.units
    if head is None:
        pairings, new = [Pairing(u, Fate.GONE) for u in base_units], []
    else:
        lines = (base_lines, head_lines or [])
        path = head[0]

        def bare(unit: Unit, region: tuple[int, int]) -> Unit:
            return _bare(unit, path, head_lines or [], region)

        pairings, new = match_text(base_units, head_units, lines, bare, pattern, opener)
    if base_units or head_units:
        for label, why in failed.items():
            notes.append(parsed_as_text((sides[label] or ("?", ""))[0], label, why))
    return FileScan(
        base_lines, head_lines, pairings, new, None, head_marked.unused, head_marked.mentions
    )


def _marked(
    side: tuple[str, str] | None,
    parsed: PythonFile | None,
    pattern: re.Pattern[str],
    opener: str | None,
) -> Marked:
    if side is None:
        return Marked()
    if parsed is not None:  # the other side failed to parse: keep this side's statement spans
        return Marked(parsed.units, parsed.unused, parsed.mentions)
    return text_marked(side[0], split_lines(side[1]), pattern, opener)


def _bare(unit: Unit, path: str, head_lines: list[str], region: tuple[int, int]) -> Unit:
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


def parse_quietly(
    source: RevisionSource, revision: str, path: str, pattern: re.Pattern[str]
) -> PythonFile | None:
    side = read_side(source, revision, path, "", ())
    if side.text is None:
        return None
    try:
        return parse_python(path, side.text, pattern)
    except _NOT_PYTHON:
        return None


def _why(error: Exception) -> str:
    if isinstance(error, SyntaxError):
        return f"line {error.lineno}: {error.msg}"
    if isinstance(error, RecursionError):
        return "it nests deeper than Python's recursion limit"
    return str(error.args[0]) if error.args else type(error).__name__
