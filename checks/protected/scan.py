"""One changed file of the `protected` check: read both revisions, find and pair its units.

Python goes through `python_units` and `match_python`; other text, and Python that does not
parse on one side, through `markers` and `match_text` (with a note saying so).
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass

from gradgate.checks.base import CheckContext, Finding, RevisionSource
from gradgate.checks.protected.findings import parsed_as_text
from gradgate.checks.protected.markers import (
    Unit,
    comment_opener,
    is_python,
    split_lines,
    text_units,
)
from gradgate.checks.protected.match import Fate, Pairing, match_python, match_text
from gradgate.checks.protected.python_units import PythonFile, parse_python

MAX_BYTES = 2 * 1024 * 1024
_SNIFF = 8192  # a NUL byte this early means binary, as git itself decides
_NOT_PYTHON = (SyntaxError, ValueError, RecursionError, tokenize.TokenError)


@dataclass(slots=True)
class FileScan:
    """One changed file after in-file matching."""

    base_lines: list[str]
    head_lines: list[str] | None  # None: the PR deleted the file
    pairings: list[Pairing]
    new: list[Unit]  # protected at head, unaccounted for at base
    head_py: PythonFile | None


class Skip(Exception):
    """The file cannot be scanned; an empty message means say nothing (binary files)."""


def load(
    ctx: CheckContext, paths: tuple[str | None, str | None], needles: tuple[bytes, ...]
) -> tuple[str | None, str | None] | None:
    """Both sides as text, or None when neither mentions a marker. Raises Skip."""
    labels = ("base", "head")
    revisions = (ctx.base_sha, ctx.head_sha)
    raw = [_read(ctx.source, *side) for side in zip(revisions, paths, labels, strict=True)]
    binary = [label for label, data in zip(labels, raw, strict=True) if data and _binary(data)]
    marked = any(data and not _binary(data) and any(n in data for n in needles) for data in raw)
    if binary:
        # Quiet for ordinary binaries; a marked text file that turned binary is news.
        raise Skip(f"it is binary at {binary[0]}" if marked else "")
    if not marked:
        return None
    return _decode(raw[0], "base"), _decode(raw[1], "head")


def _binary(data: bytes) -> bool:
    return b"\0" in data[:_SNIFF]


def _read(source: RevisionSource, revision: str, path: str | None, label: str) -> bytes | None:
    data = None if path is None else source.read(revision, path)
    if data is not None and len(data) > MAX_BYTES:
        raise Skip(f"it is {len(data) / 2**20:.1f} MB at {label}, over the 2 MB limit")
    return data


def _decode(data: bytes | None, label: str) -> str | None:
    try:
        return None if data is None else data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise Skip(f"it is not UTF-8 text at {label} (byte {error.start})") from None


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
        return FileScan(base_lines, head_lines, pairings, new, head_py)

    opener = comment_opener((head or base or ("", ""))[0])
    base_units = _units(base, parsed.get("base"), pattern, opener)
    head_units = _units(head, parsed.get("head"), pattern, opener)
    if head is None:
        pairings, new = [Pairing(u, Fate.GONE) for u in base_units], []
    else:
        lines = (base_lines, head_lines or [])
        pairings, new = match_text(base_units, head_units, lines, head[0], pattern, opener)
    if base_units or head_units:
        for label, why in failed.items():
            notes.append(parsed_as_text((sides[label] or ("?", ""))[0], label, why))
    return FileScan(base_lines, head_lines, pairings, new, None)


def _units(
    side: tuple[str, str] | None, parsed: PythonFile | None, pattern: re.Pattern[str], opener: str
) -> list[Unit]:
    if side is None:
        return []
    if parsed is not None:  # the other side failed to parse: keep this side's statement spans
        return parsed.units
    return text_units(side[0], split_lines(side[1]), pattern, opener)


def parse_quietly(
    source: RevisionSource, revision: str, path: str, pattern: re.Pattern[str]
) -> PythonFile | None:
    try:
        text = _decode(_read(source, revision, path, "head"), "head")
        return None if text is None else parse_python(path, text, pattern)
    except (Skip, *_NOT_PYTHON):
        return None


def _why(error: Exception) -> str:
    if isinstance(error, SyntaxError):
        return f"line {error.lineno}: {error.msg}"
    return str(error.args[0]) if error.args else type(error).__name__
