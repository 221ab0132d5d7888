"""Marker comments (`# NO_REFAC`) and the lines they protect in plain-text files.

Python files go through `python_units` (ast + tokenize); everything else, and Python that
does not parse, is read line by line here: an own-line marker protects the next line that holds more
than a comment, a trailing marker protects its own line.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

PYTHON_SUFFIXES = frozenset({".py", ".pyi"})
# Languages whose line comments start with `//`; in them `#` is a preprocessor line, not a comment.
_SLASH_SUFFIXES = frozenset(
    {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh", ".js", ".jsx", ".mjs",
     ".ts", ".tsx", ".java", ".go", ".rs", ".kt", ".scala", ".swift", ".proto"}
)  # fmt: skip
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what ast counts as a line break (not str.splitlines)


@dataclass(frozen=True, slots=True)
class MarkerComment:
    line: int  # 1-based
    marker: str
    own_line: bool  # nothing but whitespace before the comment
    in_brackets: bool = False  # Python only: the comment sits inside (), [] or {}


@dataclass(frozen=True, slots=True)
class Unit:
    """One protected statement (or line) in one revision of one file.

    ``key`` is what must stay equal across revisions: ``ast.dump`` for Python, the line's code
    with whitespace collapsed for text. ``anchor`` (what a statement defines, assigns or calls)
    pairs an edited statement with its original; an empty anchor never pairs.
    """

    path: str
    marker: str  # "" for a statement found unprotected at head
    marker_line: int
    own_line: bool
    start: int
    end: int
    scope: str  # "Class.method", or "" at module level
    kind: str  # ast node type, or "line"
    anchor: str
    key: str
    text: str  # the source lines marker_line/start..end, for diffs

    @property
    def where(self) -> str:
        return f"{self.path}:{self.marker_line}"


def compile_markers(markers: Sequence[str]) -> re.Pattern[str]:
    """One pattern for all markers, each as a whole word, case-sensitive; longest tried first."""
    alternatives = "|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


def split_lines(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def comment_opener(path: str) -> str:
    return "//" if PurePosixPath(path).suffix.lower() in _SLASH_SUFFIXES else "#"


def is_python(path: str) -> bool:
    return PurePosixPath(path).suffix.lower() in PYTHON_SUFFIXES


def comment_start(line: str, opener: str) -> int | None:
    """Column where a line comment starts: at line start or after whitespace (YAML's rule,
    which also keeps `http://` and `a#b` from counting)."""
    col = line.find(opener)
    while col != -1:
        if col == 0 or line[col - 1].isspace():
            return col
        col = line.find(opener, col + 1)
    return None


def python_marker_comments(text: str, pattern: re.Pattern[str]) -> list[MarkerComment]:
    """Markers in real comments only (never in strings). Raises tokenize.TokenError or
    SyntaxError when ``text`` is not Python."""
    found: list[MarkerComment] = []
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP and tok.string in ("(", "[", "{"):
            depth += 1
        elif tok.type == tokenize.OP and tok.string in (")", "]", "}"):
            depth = max(0, depth - 1)
        elif tok.type == tokenize.COMMENT and (match := pattern.search(tok.string)):
            own_line = not tok.line[: tok.start[1]].strip()
            found.append(MarkerComment(tok.start[0], match.group(), own_line, depth > 0))
    return found


def text_marker_comments(
    lines: Sequence[str], pattern: re.Pattern[str], opener: str
) -> list[MarkerComment]:
    found: list[MarkerComment] = []
    for number, line in enumerate(lines, start=1):
        col = comment_start(line, opener)
        if col is not None and (match := pattern.search(line, col)):
            found.append(MarkerComment(number, match.group(), own_line=not line[:col].strip()))
    return found


def code_of(line: str, pattern: re.Pattern[str], opener: str) -> str:
    """The line without a marker comment, whitespace collapsed: what text mode compares."""
    col = comment_start(line, opener)
    if col is not None and pattern.search(line, col):
        line = line[:col]
    return " ".join(line.split())


def text_units(
    path: str, lines: Sequence[str], pattern: re.Pattern[str], opener: str
) -> list[Unit]:
    units: list[Unit] = []
    taken: set[int] = set()
    for mc in text_marker_comments(lines, pattern, opener):
        target = mc.line if not mc.own_line else _next_code_line(lines, mc.line, opener)
        if target is None or target in taken:
            continue
        taken.add(target)
        code = code_of(lines[target - 1], pattern, opener)
        first = min(mc.line, target)
        units.append(
            Unit(
                path=path,
                marker=mc.marker,
                marker_line=mc.line,
                own_line=mc.own_line,
                start=target,
                end=target,
                scope="",
                kind="line",
                anchor=_line_anchor(code),
                key=code,
                text="\n".join(lines[first - 1 : target]),
            )
        )
    return units


def _next_code_line(lines: Sequence[str], after: int, opener: str) -> int | None:
    for number in range(after + 1, len(lines) + 1):
        stripped = lines[number - 1].strip()
        if stripped and not stripped.startswith(opener):
            return number
    return None


def _line_anchor(code: str) -> str:
    """`lr` for `lr: 0.1` or `LR=0.1`: lets an edited config line pair with its original."""
    match = re.match(r"^\s*(?:export\s+)?([\w.\-\"']+)\s*[:=]", code)
    return match.group(1) if match else ""
