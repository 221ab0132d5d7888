"""Pure: which lines of a change add or remove gradient-sensitive code (`.detach()`, no_grad...).

Shared by the plan (such an edit runs the gradient check) and the gradient check itself (a
finding points at the added `.detach()` that explains it, issue 20).

Such an edit can stop a layer from learning from anywhere in the code base, so it runs the
gradient check even outside the zones (`gradient-sensitive` in the config). Occurrences are
found in the syntax tree, so a `.detach()` in a comment or a string is none. Base and head
occurrences are paired by what they are (the construct and the statement holding it) across
every scanned file, so a line or a file that merely moved is no edit; what stays unpaired was
added (a head line) or removed (a base line).

A file whose lines mentioning these names are the same at base and head, as a multiset, is not
parsed at all: that cheap test on the bytes settles most edits.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar


def parse_python(source: bytes) -> ast.Module | None:
    """The syntax tree, or None when the source is not Python this interpreter can parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. SyntaxWarning for odd escapes in user code
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# Bytes that can start an occurrence: a line without one of them holds none.
_NEEDLES = re.compile(
    rb"detach|\.data\b|no_grad|inference_mode|enable_grad|requires_grad|register_\w*hook"
    rb"|set_grad_enabled"
)
_K = TypeVar("_K")
_GRAD_MODES = frozenset({"no_grad", "inference_mode", "enable_grad", "set_grad_enabled"})
_HOOK = re.compile(r"register_\w*hook\Z")


@dataclass(frozen=True, slots=True)
class GradientEdit:
    """One added or removed occurrence: a head line when added, a base line when removed."""

    path: str
    line: int
    construct: str  # as code: ".detach()", "torch.no_grad", "requires_grad="...
    removed: bool = False


@dataclass(frozen=True, slots=True)
class _Occurrence:
    key: tuple[str, str]  # (construct, the statement or header holding it): what pairs it
    path: str
    line: int


def needle_lines(source: bytes | None) -> Counter[bytes]:
    """The stripped lines that mention a gradient-sensitive name, counted."""
    if not source:
        return Counter()
    found: Counter[bytes] = Counter()
    last = -1
    for match in _NEEDLES.finditer(source):
        start = source.rfind(b"\n", 0, match.start()) + 1
        if start == last:
            continue  # the same line again
        end = source.find(b"\n", match.end())
        found[source[start : end if end >= 0 else len(source)].strip()] += 1
        last = start
    return found


def needs_parse(old: bytes | None, new: bytes | None) -> bool:
    """False when the change cannot add or remove an occurrence (see the module docstring)."""
    return needle_lines(old) != needle_lines(new)


def gradient_edits(
    files: Iterable[tuple[str, ast.Module | bytes | None, ast.Module | bytes | None]],
) -> tuple[GradientEdit, ...]:
    """``files``: (path, base side, head side), each side a parsed tree, the bytes, or None
    when the file is absent there. Only files that pass `needs_parse` need be given.

    A side that does not parse is read line by line, mentions in comments included: what
    cannot be read precisely counts as an edit rather than hiding one."""
    base: list[_Occurrence] = []
    head: list[_Occurrence] = []
    for path, old, new in files:
        base += _occurrences(path, old)
        head += _occurrences(path, new)
    unpaired_head = _unpaired(head, base)
    unpaired_base = _unpaired(base, head)
    edits = [GradientEdit(o.path, o.line, o.key[0]) for o in unpaired_head]
    edits += [GradientEdit(o.path, o.line, o.key[0], removed=True) for o in unpaired_base]
    return tuple(sorted(edits, key=lambda e: (e.removed, e.path, e.line)))


def _unpaired(side: list[_Occurrence], other: list[_Occurrence]) -> list[_Occurrence]:
    """The occurrences of ``side`` left over once each is paired with one alike in ``other``,
    one in the same file first (so the report names the file that changed)."""
    same = Counter((o.key, o.path) for o in other)
    rest = [o for o in side if not _take(same, (o.key, o.path))]
    elsewhere: Counter[tuple[str, str]] = Counter()
    for (key, _), n in same.items():
        elsewhere[key] += n
    return [o for o in rest if not _take(elsewhere, o.key)]


def _take(budget: Counter[_K], key: _K) -> bool:
    if budget[key] > 0:
        budget[key] -= 1
        return True
    return False


def _occurrences(path: str, side: ast.Module | bytes | None) -> list[_Occurrence]:
    if side is None:
        return []
    tree = parse_python(side) if isinstance(side, bytes) else side
    if tree is None:
        assert isinstance(side, bytes)
        return _text_occurrences(path, side)
    return [_Occurrence((construct, holder), path, line) for construct, holder, line in _scan(tree)]


def _text_occurrences(path: str, source: bytes) -> list[_Occurrence]:
    out = []
    for number, line in enumerate(source.splitlines(), start=1):
        for match in _NEEDLES.finditer(line):
            holder = line.strip().decode("utf-8", "replace")
            out.append(_Occurrence((_text_construct(match.group()), holder), path, number))
    return out


def _text_construct(word: bytes) -> str:
    name = word.decode("ascii").lstrip(".")
    if name in _GRAD_MODES:
        return f"torch.{name}"
    return f".{name}" if name in ("data", "requires_grad") else f".{name}()"


def _scan(tree: ast.Module) -> Iterator[tuple[str, str, int]]:
    """(construct, holder, line) for each occurrence. The holder is the dump of the simple
    statement that holds it, or of the header part of a compound statement plus what the header
    governs (a `with` block's first statement, a decorated function's name): `no_grad` around
    other code is another `no_grad`."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        holders, context = _holders(node, stack)
        for holder in holders:
            dumped: str | None = None
            for sub in ast.walk(holder):
                construct = _construct(sub)
                if construct is not None:
                    dumped = dumped or ast.dump(holder) + context
                    yield construct, dumped, getattr(sub, "lineno", 0)


def _holders(node: ast.AST, stack: list[ast.AST]) -> tuple[list[ast.AST], str]:
    """The expressions or simple statements of ``node`` to search, and what the header
    governs; pushes its nested bodies."""
    if isinstance(node, ast.Module):
        stack.extend(reversed(node.body))
        return [], ""
    if not isinstance(node, _COMPOUND):
        return [node], ""  # a simple statement: it holds its occurrences
    if isinstance(node, ast.With | ast.AsyncWith) and node.body:
        context = " governs " + ast.dump(node.body[0])
    else:
        context = f" of {getattr(node, 'name', '')}"
    holders: list[ast.AST] = []
    for field, value in ast.iter_fields(node):
        if field in ("body", "orelse", "finalbody"):
            stack.extend(reversed(value))
        elif field == "handlers":
            for handler in value:
                if handler.type is not None:
                    holders.append(handler.type)
                stack.extend(reversed(handler.body))
        elif field == "cases":
            for case in value:
                holders.append(case.pattern)
                if case.guard is not None:
                    holders.append(case.guard)
                stack.extend(reversed(case.body))
        elif isinstance(value, ast.AST):
            holders.append(value)
        elif isinstance(value, list):
            holders += [v for v in value if isinstance(v, ast.AST)]
    return holders, context


_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)


def _construct(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        attr = node.attr
        if attr in ("detach", "detach_", "requires_grad_") or _HOOK.match(attr):
            return f".{attr}()"
        if attr == "requires_grad":
            return ".requires_grad"
        if attr == "data" and not _is_utils(node.value):
            return ".data"
        if attr in _GRAD_MODES:
            return f"torch.{attr}"
        return None
    if isinstance(node, ast.Name):
        if node.id in _GRAD_MODES:
            return f"torch.{node.id}"
        if _HOOK.match(node.id):
            return f"{node.id}()"
        return None
    if isinstance(node, ast.keyword) and node.arg == "requires_grad":
        return "requires_grad="
    return None


def _is_utils(node: ast.expr) -> bool:
    """`torch.utils.data` is a module, not a tensor's `.data`."""
    return isinstance(node, ast.Attribute) and node.attr == "utils"
