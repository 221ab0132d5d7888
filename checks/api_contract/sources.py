"""The Python files the check reads, each read, parsed and walked at most once per revision.

Signatures, the call-site search and the loss scan all ask for the same files: this cache
gives each of them the bytes, the tree and the resolved calls, and collects what could not be
read as notes instead of failing the check.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field

from gradgate.checks.api_contract.calls import Call, module_calls
from gradgate.checks.base import RevisionSource

MAX_BYTES = 2 * 1024 * 1024  # above this a file is data, not code someone calls into
_NOT_PYTHON = (SyntaxError, ValueError, RecursionError, MemoryError)


@dataclass(slots=True)
class Sources:
    source: RevisionSource
    shas: dict[str, str]  # "base"/"head" -> the SHA
    unreadable: dict[tuple[str, str], str] = field(default_factory=dict)  # (side, path) -> why
    _bytes: dict[tuple[str, str], bytes | None] = field(default_factory=dict)
    _trees: dict[tuple[str, str], ast.Module | None] = field(default_factory=dict)
    _calls: dict[tuple[str, str], list[Call]] = field(default_factory=dict)

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

    def tree(self, side: str, path: str | None) -> ast.Module | None:
        if path is None:
            return None
        key = (side, path)
        if key not in self._trees:
            data = self.read(side, path)
            self._trees[key] = None if data is None else self._parse(key, data)
        return self._trees[key]

    def calls(self, side: str, path: str | None) -> list[Call]:
        if path is None:
            return []
        key = (side, path)
        if key not in self._calls:
            tree = self.tree(side, path)
            self._calls[key] = [] if tree is None else module_calls(tree, path)
        return self._calls[key]

    def _parse(self, key: tuple[str, str], data: bytes) -> ast.Module | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes in user code
                return ast.parse(data)
        except _NOT_PYTHON as error:
            detail = getattr(error, "msg", None) or type(error).__name__
            line = getattr(error, "lineno", None)
            self.unreadable[key] = f"it does not parse ({detail}{f', line {line}' if line else ''})"
            return None
