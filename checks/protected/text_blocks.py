"""How far a protected line of a text file reaches (pure): its YAML block, its shell statement.

In YAML a marker above a mapping key (or list item) protects the key's whole block: the lines
below it indented deeper. In shell a statement continued with a trailing `\\` is one statement,
whichever of its lines the marker sits on. Elsewhere a protected line is just that line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

_YAML = frozenset({".yml", ".yaml"})
_SHELL = frozenset({".sh", ".bash", ".zsh", ".ksh"})


def extent(path: str, lines: Sequence[str], target: int, opener: str) -> tuple[int, int]:
    """The first and last line (1-based) of what the line ``target`` starts or belongs to."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _YAML:
        return target, _yaml_block_end(lines, target, opener)
    if suffix in _SHELL:
        return _shell_statement(lines, target)
    return target, target


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _yaml_block_end(lines: Sequence[str], target: int, opener: str) -> int:
    """The last line indented deeper than ``target`` before the next line that is not."""
    depth, end = _indent(lines[target - 1]), target
    for number in range(target + 1, len(lines) + 1):
        stripped = lines[number - 1].strip()
        if not stripped or stripped.startswith(opener):
            continue  # blank lines and comments neither end a block nor belong to its end
        if _indent(lines[number - 1]) <= depth:
            break
        end = number
    return end


def _continues(line: str) -> bool:
    return line.endswith("\\") and not line.endswith("\\\\")


def _shell_statement(lines: Sequence[str], target: int) -> tuple[int, int]:
    start = target
    while start > 1 and _continues(lines[start - 2]):
        start -= 1
    end = target
    while end < len(lines) and _continues(lines[end - 1]):
        end += 1
    return start, end
