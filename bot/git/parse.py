"""Parsing `git diff` output: `--raw -z -p -U0` into FileChanges, `--name-status -z` into paths.

Pure: no GitPython and no process of its own. `repository` runs git with its options pinned
(full shas, `a/` and `b/` prefixes, core.quotepath=false, zero context) and hands over the output,
as bytes or as the stream git is writing; this module relies on those options. Output that does
not parse is a GitError.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import IO

from gradgate.checks.diff import ChangeStatus, FileChange, LineSpan
from gradgate.checks.errors import GitError

_STATUS = {
    "A": ChangeStatus.ADDED,
    "M": ChangeStatus.MODIFIED,
    "D": ChangeStatus.DELETED,
    "R": ChangeStatus.RENAMED,
    "C": ChangeStatus.COPIED,
    "T": ChangeStatus.TYPE_CHANGED,
}
_SYMLINK, GITLINK, _NONE = "120000", "160000", "000000"
_ONE_PATH = frozenset("AMDT")  # the statuses of `--name-status` records with a single path

# One raw record: status letter, head-side path, base-side path (renames only), the two modes.
_Raw = tuple[str, str, str | None, str, str]


def read_name_status(stream: IO[bytes]) -> tuple[list[str], int]:
    """Every path `git diff --name-status -z` names (both sides of a rename), and the file count.

    The planner's path: it needs paths only, and on a 100,000-file diff building FileChanges
    costs more than git's own run.
    """
    return _name_status(stream.read().decode("utf-8", "surrogateescape").split("\0"))


def _name_status(fields: list[str]) -> tuple[list[str], int]:
    end = len(fields) - 1  # the output ends with a NUL: the last field is empty
    # Without renames every record is "<letter>", "<path>": one slice each, no loop. A rename's
    # status carries a score ("R100") and would sit among the even fields, so this is exact.
    if end % 2 == 0 and set(fields[0:end:2]) <= _ONE_PATH:
        return fields[1:end:2], end // 2
    paths: list[str] = []
    files = 0
    i = 0
    while i < end:
        letter = fields[i][:1]
        if letter not in _STATUS:
            raise GitError(f"unexpected change status {fields[i]!r} in `git diff` output")
        width = 2 if letter in "RC" else 1
        paths += fields[i + 1 : i + 1 + width]
        i += 1 + width
        files += 1
    return paths, files


def parse_with_lines(stream: IO[bytes]) -> tuple[FileChange, ...]:
    """FileChanges with line spans from `git diff --raw -z -p -U0`, read from ``stream``.

    The output is the raw records (NUL-separated), an empty field, then the patch. The patch is
    read as a stream, so a huge generated file does not sit in memory whole.
    """
    raw, rest = _read_raw_part(stream)
    records = list(_raw_records(iter(raw.decode("utf-8", "surrogateescape").split("\0"))))
    return _attach_spans(records, _patch_sections(_chunks(rest, stream)))


def _raw_records(fields: Iterator[str]) -> Iterator[_Raw]:
    """Records of `git diff --raw -z`: ":<mode> <mode> <sha> <sha> <status>[score]" then the
    path, or the old and the new path for renames and copies. Stops at the first empty field
    (the end, or the separator before a patch)."""
    for meta in fields:
        if not meta:
            return
        letter = meta.rpartition(" ")[2][:1]
        if letter not in _STATUS:
            raise GitError(f"unexpected change status {letter!r} in `git diff` output")
        paths = list(islice(fields, 2 if letter in "RC" else 1))
        if not all(paths) or len(paths) < (2 if letter in "RC" else 1):
            raise GitError(f"unexpected `git diff` output: the record {meta!r} lacks its path")
        yield letter, paths[-1], paths[0] if letter in "RC" else None, meta[1:7], meta[8:14]


def _read_raw_part(stream: IO[bytes]) -> tuple[bytes, bytes]:
    """Split the output at the empty field after the raw records: (raw records, what follows)."""
    buffer = bytearray()
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            return bytes(buffer), b""
        start = max(len(buffer) - 1, 0)
        buffer += chunk
        # Paths and records are never empty, so "\0\0" only occurs at the separator.
        cut = buffer.find(b"\0\0", start)
        if cut >= 0:
            return bytes(buffer[: cut + 1]), bytes(buffer[cut + 2 :])


def _chunks(head: bytes, stream: IO[bytes]) -> Iterator[bytes]:
    """``head`` and then the rest of ``stream``, in pieces that each end at a line end."""
    pending = bytearray(head)
    while chunk := stream.read(1 << 20):
        start = len(pending)
        pending += chunk
        cut = pending.rfind(b"\n", start) + 1
        if cut:
            yield bytes(pending[:cut])
            del pending[:cut]
    if pending:
        yield bytes(pending)


# The lines of a patch that matter here. Content lines start with "+", "-", " " or "\", so
# these never match inside a file's text, and a regex skips the text without a Python loop.
_MARKERS = re.compile(
    rb"^(?:(diff --git [^\n]*)|@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@|(Binary files ))",
    re.MULTILINE,
)
_Section = tuple[bytes, bool, list[LineSpan], list[LineSpan]]


def _patch_sections(chunks: Iterable[bytes]) -> Iterator[_Section]:
    """(the `diff --git` line, binary?, old spans, new spans) for each file section of a patch."""
    section: _Section | None = None
    for chunk in chunks:
        for header, old_at, old_count, new_at, new_count, binary in _MARKERS.findall(chunk):
            if header:
                if section is not None:
                    yield section
                section = (header, False, [], [])
            elif section is None:
                raise GitError("unexpected `git diff` output: patch text before a file header")
            elif binary:
                section = (section[0], True, section[2], section[3])
            else:  # a hunk "@@ -old_at,old_count +new_at,new_count @@"; a count of 1 is left out
                if old_lines := int(old_count or 1):
                    section[2].append(LineSpan(int(old_at), int(old_at) + old_lines - 1))
                if new_lines := int(new_count or 1):
                    section[3].append(LineSpan(int(new_at), int(new_at) + new_lines - 1))
    if section is not None:
        yield section


def _attach_spans(records: list[_Raw], sections: Iterator[_Section]) -> tuple[FileChange, ...]:
    """Pair raw records with their patch sections, which git writes in the same order."""
    changes: list[FileChange] = []
    for letter, path, old, old_mode, new_mode in records:
        # git splits a change of file type (file <-> symlink <-> submodule) into a deletion and
        # an addition in the patch, but reports it as one "T" record.
        split = _NONE not in (old_mode, new_mode) and old_mode[:2] != new_mode[:2]
        expected = _header(old or path, path)
        binary, old_lines, new_lines = False, [], []
        for _ in range(2 if split else 1):
            section = next(sections, None)
            if section is None or section[0] != expected:
                got = "the end" if section is None else repr(section[0])
                raise GitError(f"unexpected `git diff` output: wanted {expected!r}, got {got}")
            binary = binary or section[1]
            old_lines += section[2]
            new_lines += section[3]
        submodule = GITLINK in (old_mode, new_mode)
        spans = not (binary or submodule)  # a gitlink's "Subproject commit" line is no file line
        changes.append(
            FileChange(
                path,
                _STATUS[letter],
                old,
                old_lines=tuple(old_lines) if spans else (),
                new_lines=tuple(new_lines) if spans else (),
                binary=binary,
                submodule=submodule,
                symlink=_SYMLINK in (old_mode, new_mode),
                old_mode=old_mode,
                new_mode=new_mode,
            )
        )
    if next(sections, None) is not None:
        raise GitError("unexpected `git diff` output: more file sections than changed files")
    return tuple(changes)


def _header(old: str, new: str) -> bytes:
    return b"diff --git " + _quote("a/" + old) + b" " + _quote("b/" + new)


# git's C-style quoting of a path (quote.c) with core.quotepath=false: bytes >= 0x80 stay as is.
_MUST_QUOTE = re.compile(rb'[\x00-\x1f"\\\x7f]')
_ESCAPES = {
    b"\a": b"a",
    b"\b": b"b",
    b"\t": b"t",
    b"\n": b"n",
    b"\v": b"v",
    b"\f": b"f",
    b"\r": b"r",
}


def _escape(match: re.Match[bytes]) -> bytes:
    char = match.group()
    if char in b'"\\':
        return b"\\" + char
    return b"\\" + (_ESCAPES.get(char) or b"%03o" % ord(char))


def _quote(path: str) -> bytes:
    raw = path.encode("utf-8", "surrogateescape")
    if _MUST_QUOTE.search(raw) is None:
        return raw
    return b'"' + _MUST_QUOTE.sub(_escape, raw) + b'"'
