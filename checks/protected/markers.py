r"""Marker comments (`# NO_REFAC`) and the lines they protect in plain-text files.

A marker counts as the first word of a comment (`# NO_REFAC` or `# NO_REFAC: reason`) or of a
`#` segment inside one (`lr = 6e-4  # max learning rate  # NO_REFAC`, issue 18), so a sentence
that mentions one ("mark lines such as `# NO_REFAC`") protects nothing. A marker word anywhere
else in a comment, outside backticks and double quotes, is a `Mention`: the check warns that it
looks like a marker but is not one. Python files go through `python_units` (ast + tokenize);
everything else, and Python that does not parse, is read line by line here: an own-line marker
protects the next line that holds more than a comment (or, when no such line follows it in its
block, the one just above it: a last line `# DON'T TOUCH ...` of `run.sh`), a trailing marker its
own line, each extended by `text_blocks` (a YAML key's block, a shell statement's `\`
continuations). Markdown has no line comments: `## Heading` is a heading.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
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
_LEAD = r"[ \t]*"  # what may come between a comment's opener and its marker
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what ast counts as a line break (not str.splitlines)


@dataclass(frozen=True, slots=True)
class MarkerComment:
    line: int  # 1-based
    marker: str
    own_line: bool  # nothing but whitespace before the comment
    in_brackets: bool = False  # Python only: the comment sits inside (), [] or {}
    column: int = 0  # where the comment starts: its block, for an own-line marker


@dataclass(frozen=True, slots=True)
class Mention:
    """A comment that holds a marker word where it is no marker (`# see NO_REFAC policy`)."""

    line: int
    marker: str


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
    return re.compile(rf"{_LEAD}(?:{alternatives})(?!\w)")


def marker_of(comment: str, pattern: re.Pattern[str]) -> str | None:
    """The marker that is the first word of ``comment`` (the text after `#` or `//`), if any."""
    found = pattern.match(comment)
    return found.group().strip() if found else None


def marker_in(comment: str, pattern: re.Pattern[str], opener: str) -> str | None:
    """The marker that is the first word of ``comment`` or of an ``opener`` segment in it (one
    at its start or after whitespace: `max lr  # NO_REFAC`, not `` `# NO_REFAC` ``)."""
    found = marker_of(comment, pattern)
    at = comment.find(opener)
    while found is None and at != -1:
        if at == 0 or comment[at - 1].isspace():
            found = marker_of(comment[at + len(opener) :], pattern)
        at = comment.find(opener, at + 1)
    return found


_QUOTED = re.compile(r"(`+)(?:(?!\1).)*?\1|\"[^\"]*\"")  # a code span, or "a string"


@functools.lru_cache(maxsize=8)
def _word_pattern(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + pattern.pattern.removeprefix(_LEAD))


def mention_in(comment: str, pattern: re.Pattern[str]) -> str | None:
    """A marker word in a comment that is no marker, outside code spans and double quotes:
    `see NO_REFAC policy` (a user who meant it), not `` `# NO_REFAC` `` (one who names it)."""
    found = _word_pattern(pattern).search(_QUOTED.sub(" ", comment))
    return found.group() if found else None


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


def python_marker_comments(
    text: str, pattern: re.Pattern[str]
) -> tuple[list[MarkerComment], list[Mention]]:
    """Markers, and mentions of marker words, in real comments only (never in strings). Raises
    tokenize.TokenError or SyntaxError when ``text`` is not Python."""
    found: list[MarkerComment] = []
    mentions: list[Mention] = []
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP and tok.string in ("(", "[", "{"):
            depth += 1
        elif tok.type == tokenize.OP and tok.string in (")", "]", "}"):
            depth = max(0, depth - 1)
        elif tok.type == tokenize.COMMENT:
            line, col = tok.start
            if marker := marker_in(tok.string[1:], pattern, "#"):
                own_line = not tok.line[:col].strip()
                found.append(MarkerComment(line, marker, own_line, depth > 0, col))
            elif word := mention_in(tok.string[1:], pattern):
                mentions.append(Mention(line, word))
    return found, mentions


def text_marker_comments(
    lines: Sequence[str], pattern: re.Pattern[str], opener: str
) -> tuple[list[MarkerComment], list[Mention]]:
    found: list[MarkerComment] = []
    mentions: list[Mention] = []
    for number, line in enumerate(lines, start=1):
        col = comment_start(line, opener)
        if col is None:
            continue
        comment = line[col + len(opener) :]
        if marker := marker_in(comment, pattern, opener):
            own_line = not line[:col].strip()
            found.append(MarkerComment(number, marker, own_line=own_line, column=col))
        elif word := mention_in(comment, pattern):
            mentions.append(Mention(number, word))
    return found, mentions


def code_of(line: str, pattern: re.Pattern[str], opener: str) -> str:
    """The line without a marker comment, whitespace collapsed: what text mode compares."""
    col = comment_start(line, opener)
    if col is not None and marker_in(line[col + len(opener) :], pattern, opener):
        line = line[:col]
    return " ".join(line.split())


@dataclass(slots=True)
class Marked:
    """What the markers of one revision of a file protect, and what they leave unsaid."""

    units: list[Unit] = field(default_factory=list)
    unused: list[MarkerComment] = field(default_factory=list)  # markers that protect nothing
    mentions: list[Mention] = field(default_factory=list)  # marker words that are no marker


def text_units(
    path: str, lines: Sequence[str], pattern: re.Pattern[str], opener: str | None
) -> list[Unit]:
    return text_marked(path, lines, pattern, opener).units


def text_marked(
    path: str, lines: Sequence[str], pattern: re.Pattern[str], opener: str | None
) -> Marked:
    if opener is None:
        return Marked()
    found, mentions = text_marker_comments(lines, pattern, opener)
    marked = Marked(mentions=mentions)
    units = marked.units
    taken: set[int] = set()
    for mc in found:
        target = mc.line if not mc.own_line else _own_line_target(lines, mc, opener)
        if target is None:
            marked.unused.append(mc)
            continue
        if target in taken:
            continue
        taken.add(target)
        start, end = extent(path, lines, target, opener)
        codes = [
            code
            for line in lines[start - 1 : end]
            if (code := code_of(line, pattern, opener)) and not code.startswith(opener)
        ]
        first, last = min(mc.line, start), max(mc.line, end)
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
                text="\n".join(lines[first - 1 : last]),
            )
        )
    return marked


def _own_line_target(lines: Sequence[str], mc: MarkerComment, opener: str) -> int | None:
    """The next code line, if one follows in the marker's block (indented at least as deep);
    otherwise the code line just above: a marker that closes a block guards what it closes."""
    after = _code_line(lines, range(mc.line + 1, len(lines) + 1), opener)
    if after is not None and _indent(lines[after - 1]) >= mc.column:
        return after
    return _code_line(lines, range(mc.line - 1, 0, -1), opener) or after


def _code_line(lines: Sequence[str], numbers: range, opener: str) -> int | None:
    for number in numbers:
        stripped = lines[number - 1].strip()
        if stripped and not stripped.startswith(opener):
            return number
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _line_anchor(code: str) -> str:
    """`lr` for `lr: 0.1` or `LR=0.1`: lets an edited config line pair with its original."""
    match = re.match(r"^\s*(?:export\s+)?([\w.\-\"']+)\s*[:=]", code)
    return match.group(1) if match else ""
