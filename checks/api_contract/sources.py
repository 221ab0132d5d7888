"""The Python files the check reads: bytes read once per revision, trees parsed on demand.

Trees are not kept: the check streams over the repository (one file's tree at a time), which
keeps memory flat and spares the garbage collector from scanning thousands of live syntax
trees (that alone made parsing three times slower). Whether a call at head stood the same at
base is first asked of the base's bytes (the call's exact text, outside a comment), which
settles nearly every call without parsing the base at all; the rest is compared by syntax
tree. What could not be read is collected as notes instead of failing the check.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field

from gradgate.checks.context import RevisionSource

MAX_BYTES = 2 * 1024 * 1024  # above this a file is data, not code someone calls into
_NOT_PYTHON = (SyntaxError, ValueError, RecursionError, MemoryError)


@dataclass(slots=True)
class Sources:
    source: RevisionSource
    shas: dict[str, str]  # "base"/"head" -> the SHA
    unreadable: dict[tuple[str, str], str] = field(default_factory=dict)  # (side, path) -> why
    error_lines: dict[tuple[str, str], int] = field(default_factory=dict)  # where it fails
    _parsed: set[tuple[str, str]] = field(default_factory=set)  # (side, path) that parsed
    _bytes: dict[tuple[str, str], bytes | None] = field(default_factory=dict)
    _lines: dict[str, list[int]] = field(default_factory=dict)  # head path -> line offsets

    def read(self, side: str, path: str | None) -> bytes | None:
        if path is None:
            return None
        key = (side, path)
        if key not in self._bytes:
            data = self.source.read(self.shas[side], path)
            if data is not None and len(data) > MAX_BYTES:
                self.unreadable[key] = f"it is {len(data) / 2**20:.1f} MB, over the 2 MB limit"
                data = None
            self._bytes[key] = data
        return self._bytes[key]

    def parse(self, side: str, path: str | None) -> ast.Module | None:
        data = self.read(side, path)
        if data is None or path is None:
            return None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes in user code
                tree = ast.parse(data)
        except _NOT_PYTHON as error:
            detail = getattr(error, "msg", None) or type(error).__name__
            line = getattr(error, "lineno", None)
            at = f", line {line}" if line else ""
            self.unreadable[side, path] = f"it does not parse at {side} ({detail}{at})"
            if line:
                self.error_lines[side, path] = line
            return None
        self._parsed.add((side, path))
        return tree

    def parses(self, side: str, path: str) -> bool:
        """Is ``path`` Python this check can read at ``side`` (parsed once, whatever asks)?"""
        key = (side, path)
        if key in self._parsed:
            return True
        if key in self.unreadable:
            return False
        return self.parse(side, path) is not None

    def text(self, path: str, node: ast.expr) -> bytes:
        """The code of ``node`` in the head file ``path`` (ast offsets count UTF-8 bytes)."""
        data = self.read("head", path) or b""
        if path not in self._lines:
            starts = [0]
            at = data.find(b"\n")
            while at >= 0:
                starts.append(at + 1)
                at = data.find(b"\n", at + 1)
            self._lines[path] = starts
        starts = self._lines[path]
        end_line = node.end_lineno or node.lineno
        end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return data[starts[node.lineno - 1] + node.col_offset : starts[end_line - 1] + end_col]

    def in_base(self, code: bytes, paths: Iterable[str | None]) -> bool:
        """Does ``code`` stand, as is and outside a comment, in one of these files at base?"""
        for path in paths:
            data = self.read("base", path)
            if data is None:
                continue
            at = data.find(code)
            while at >= 0:
                line_start = data.rfind(b"\n", 0, at) + 1
                if b"#" not in data[line_start:at]:
                    return True
                at = data.find(code, at + 1)
        return False
