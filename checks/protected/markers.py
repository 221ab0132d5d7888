r"""Marker comments (`# NO_REFAC`) and the lines they protect in plain-text files.

A marker counts only as the first word of a comment (`# NO_REFAC` or `# NO_REFAC: reason`), so
a sentence that mentions one ("mark lines such as `# NO_REFAC`") protects nothing. Python files
go through `python_units` (ast + tokenize); everything else, and Python that does not parse, is
read line by line here: an own-line marker protects the next line that holds more than a
comment, a trailing marker its own line, each extended by `text_blocks` (a YAML key's block, a
shell statement's `\` continuations). Markdown has no line comments: `## Heading` is a heading.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from gradgate.checks.protected.text_blocks import extent

PYTHON_SUFFIXES = frozenset({".py", ".pyi"})
# Languages whose line comments start with `//`; in them `#` is a preprocessor line, not a comment.
_SLASH_SUFFIXES = frozenset(
    {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh", ".js", ".jsx", ".mjs",
     ".ts", ".tsx", ".java", ".go", ".rs", ".kt", ".scala", ".swift", ".proto"}
)  # fmt: skip
# Formats whose `#` starts a heading, not a comment: nothing in them is a marker comment.
_NO_LINE_COMMENTS = frozenset({".md", ".markdown", ".mdx", ".rst"})
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
    context: str = ""  # Python: the control flow around it in its scope (`if False:`), in words

    @property
    def where(self) -> str:
        return f"{self.path}:{self.marker_line}"


def compile_markers(markers: Sequence[str]) -> re.Pattern[str]:
    """One pattern for all markers, each as a whole word, case-sensitive; longest tried first.

    Use it through :func:`marker_of`, on the text after a comment's opener."""
    alternatives = "|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True))
    return re.compile(rf"[ \t]*(?:{alternatives})(?!\w)")


def marker_of(comment: str, pattern: re.Pattern[str]) -> str | None:
    """The marker that is the first word of ``comment`` (the text after `#` or `//`), if any."""
    found = pattern.match(comment)
    return found.group().strip() if found else None


def split_lines(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def comment_opener(path: str) -> str | None:
    """What starts a line comment in this file's language; None where nothing does."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _NO_LINE_COMMENTS:
        return None
    return "//" if suffix in _SLASH_SUFFIXES else "#"


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
        elif tok.type == tokenize.COMMENT and (marker := marker_of(tok.string[1:], pattern)):
            own_line = not tok.line[: tok.start[1]].strip()
            found.append(MarkerComment(tok.start[0], marker, own_line, depth > 0))
    return found


def text_marker_comments(
    lines: Sequence[str], pattern: re.Pattern[str], opener: str
) -> list[MarkerComment]:
    found: list[MarkerComment] = []
    for number, line in enumerate(lines, start=1):
        col = comment_start(line, opener)
        if col is not None and (marker := marker_of(line[col + len(opener) :], pattern)):
            found.append(MarkerComment(number, marker, own_line=not line[:col].strip()))
    return found


def code_of(line: str, pattern: re.Pattern[str], opener: str) -> str:
    """The line without a marker comment, whitespace collapsed: what text mode compares."""
    col = comment_start(line, opener)
    if col is not None and marker_of(line[col + len(opener) :], pattern):
        line = line[:col]
    return " ".join(line.split())


def text_units(
    path: str, lines: Sequence[str], pattern: re.Pattern[str], opener: str | None
) -> list[Unit]:
    if opener is None:
        return []
    units: list[Unit] = []
    taken: set[int] = set()
    for mc in text_marker_comments(lines, pattern, opener):
        target = mc.line if not mc.own_line else _next_code_line(lines, mc.line, opener)
        if target is None or target in taken:
            continue
        taken.add(target)
        start, end = extent(path, lines, target, opener)
        codes = [
            code
            for line in lines[start - 1 : end]
            if (code := code_of(line, pattern, opener)) and not code.startswith(opener)
        ]
        first = min(mc.line, start)
        units.append(
            Unit(
                path=path,
                marker=mc.marker,
                marker_line=mc.line,
                own_line=mc.own_line,
                start=start,
                end=end,
                scope="",
                kind="line",
                anchor=_line_anchor(code_of(lines[target - 1], pattern, opener)),
                key="\n".join(codes),
                text="\n".join(lines[first - 1 : end]),
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
