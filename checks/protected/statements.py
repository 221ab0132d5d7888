"""Every statement of a parsed Python file, with its scope and context, found by line (pure).

``statements_of(tree)`` lists the statements in line order, each with its scope (`Class.method`)
and its context: the control flow around it inside its scope, in words (`if False:`, `else:` of
`if x:`, after a `return`). ``Lines`` says which statements a marker comment annotates: an
own-line marker the next statement in its block (or, when none follows there, the one just
above it), a trailing one the innermost on its line.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from gradgate.checks.protected.markers import MarkerComment

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_BRANCHES = ("body", "orelse", "finalbody", "handlers", "cases")
_SHOWN = 60  # characters of a condition shown in a context


@dataclass(frozen=True, slots=True, eq=False)
class Statement:
    node: ast.stmt
    scope: str
    depth: int
    start: int  # first line, decorators included
    end: int
    context: str  # the control flow around it within its scope, in words; "" at its top


def statements_of(tree: ast.AST) -> list[Statement]:
    """Every statement in ``tree``, by first line and then depth."""
    return sorted(_statements(tree, "", 0, ""), key=lambda s: (s.start, s.depth))


def _statements(node: ast.AST, scope: str, depth: int, context: str) -> list[Statement]:
    found: list[Statement] = []
    for branch, children in _branches(node):
        here = _join(context, _describe(node, branch))
        exited = ""
        for child in children:
            if isinstance(child, ast.excepthandler | ast.match_case):
                found.extend(_statements(child, scope, depth + 1, here))
                continue
            if not isinstance(child, ast.stmt):
                continue
            decorators = getattr(child, "decorator_list", [])
            start = min([child.lineno, *(d.lineno for d in decorators)])
            end = child.end_lineno or child.lineno
            where = _join(here, exited)
            found.append(Statement(child, scope, depth, start, end, where))
            if isinstance(child, SCOPES):  # a new scope: its own context starts empty
                inner = f"{scope}.{child.name}".lstrip(".")
                found.extend(_statements(child, inner, depth + 1, ""))
            else:
                found.extend(_statements(child, scope, depth + 1, where))
            if isinstance(child, _EXITS) and not exited:
                exited = f"after a `{type(child).__name__.lower()}`"
    return found


def _branches(node: ast.AST) -> list[tuple[str, list[ast.AST]]]:
    if isinstance(node, ast.ExceptHandler | ast.match_case):
        return [("body", list(node.body))]
    return [(name, list(getattr(node, name))) for name in _BRANCHES if hasattr(node, name)]


def _join(context: str, more: str) -> str:
    return " › ".join(part for part in (context, more) if part)


def _short(node: ast.AST | None) -> str:
    text = "" if node is None else " ".join(ast.unparse(node).split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _describe(node: ast.AST, branch: str) -> str:
    """The words for the branch ``branch`` of compound statement ``node`` (`if x:`, `else:`)."""
    if isinstance(node, ast.If | ast.While):
        head = f"`{'if' if isinstance(node, ast.If) else 'while'} {_short(node.test)}:`"
        return head if branch == "body" else f"`else:` of {head}"
    if isinstance(node, ast.For | ast.AsyncFor):
        head = f"`for {_short(node.target)} in {_short(node.iter)}:`"
        return head if branch == "body" else f"`else:` of {head}"
    if isinstance(node, ast.With | ast.AsyncWith):
        return "`with " + ", ".join(_short(item.context_expr) for item in node.items) + ":`"
    if isinstance(node, ast.Try | ast.TryStar):
        words = {"body": "`try:`", "orelse": "`else:` of `try:`", "finalbody": "`finally:`"}
        return words.get(branch, "")
    if isinstance(node, ast.ExceptHandler):
        return f"`except {_short(node.type)}:`".replace("except :", "except:")
    if isinstance(node, ast.match_case):
        return f"`case {_short(node.pattern)}:`"
    if isinstance(node, ast.Match):
        return f"`match {_short(node.subject)}:`"
    return ""


class Lines:
    """Which statements a marker comment annotates, found by line in O(log n)."""

    def __init__(self, statements: Sequence[Statement]) -> None:
        self.statements = statements
        self.starts = [s.start for s in statements]
        self._ending: dict[int, list[Statement]] | None = None  # by last line, built if needed
        # Per line, the innermost statement that covers it: deeper statements overwrite.
        last = max((s.end for s in statements), default=0)
        self.inner: list[Statement | None] = [None] * (last + 2)
        for s in sorted(statements, key=lambda s: s.depth):
            self.inner[s.start : s.end + 1] = [s] * (s.end - s.start + 1)

    def annotated(self, comment: MarkerComment) -> list[Statement]:
        line = comment.line
        inner = self.inner[line] if line < len(self.inner) else None
        if not comment.own_line or comment.in_brackets:
            if inner is None:
                return []
            # `a = 1; b = 2  # NO_REFAC` protects both statements on the line.
            lo = bisect.bisect_left(self.starts, inner.start)
            hi = bisect.bisect_right(self.starts, line)
            return [
                s
                for s in self.statements[lo:hi]
                if s.depth == inner.depth and s.start <= line <= s.end
            ]
        # An own-line marker between a decorator and its `def` still protects that `def`.
        if inner is not None and line <= inner.node.lineno:
            return [inner]
        after = bisect.bisect_right(self.starts, line)
        if after < len(self.starts):
            first = self.starts[after]
            at = bisect.bisect_right(self.starts, first)
            following = min(self.statements[after:at], key=lambda s: s.depth)
            if following.node.col_offset >= comment.column:  # it is in the marker's block
                return [following]
        above = self._above(comment)
        if above is not None:
            return [above]
        return [following] if after < len(self.starts) else []

    def _above(self, comment: MarkerComment) -> Statement | None:
        """The statement just above an own-line marker that closes its block: of those ending
        on the last code line above it, the deepest one the marker is not indented less than
        (`# NO_REFAC` at the end of a loop body: the body's last statement, not the loop)."""
        line = comment.line - 1
        while line > 0 and (line >= len(self.inner) or self.inner[line] is None):
            line -= 1
        if line == 0:
            return None
        if self._ending is None:
            self._ending = {}
            for s in self.statements:
                self._ending.setdefault(s.end, []).append(s)
        ending = self._ending.get(line, [])
        if not ending:
            return None
        fits = [s for s in ending if s.node.col_offset <= comment.column]
        return max(fits, key=lambda s: s.depth) if fits else min(ending, key=lambda s: s.depth)
