"""Which Python statement each marker protects: ast for statement spans, tokenize for comments.

An own-line marker protects the next statement, a compound one whole (decorators included); a
trailing marker, or one inside brackets, protects the innermost statement on its line. A
statement's identity across revisions is ``ast.dump(node, include_attributes=False)``, so a
black/ruff reformat leaves it equal and any change to the syntax tree does not.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from gradgate.checks.protected.markers import (
    MarkerComment,
    Unit,
    python_marker_comments,
    split_lines,
)

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True, slots=True)
class Statement:
    node: ast.stmt
    scope: str
    depth: int
    start: int  # first line, decorators included
    end: int


@dataclass(slots=True)
class PythonFile:
    """One parsed revision of a Python file: its protected units and every statement in it."""

    path: str
    lines: list[str]
    units: list[Unit]
    statements: list[Statement]
    _dumps: dict[int, str] = field(default_factory=dict)

    def dump(self, statement: Statement) -> str:
        key = id(statement.node)
        if key not in self._dumps:
            self._dumps[key] = ast.dump(statement.node, include_attributes=False)
        return self._dumps[key]

    def unprotected(self, unit: Unit, *, same_scope: bool) -> Unit | None:
        """A statement here that is ``unit`` unchanged (or, failing that, the statement it was
        edited into, by scope, kind and anchor) but carries no marker."""
        protected = {(u.start, u.end) for u in self.units}
        candidates = [
            s
            for s in self.statements
            if (s.start, s.end) not in protected
            and type(s.node).__name__ == unit.kind
            and (s.scope == unit.scope or not same_scope)
        ]
        found = next((s for s in candidates if self.dump(s) == unit.key), None)
        if found is None and same_scope and unit.anchor:
            found = next((s for s in candidates if _anchor(s.node) == unit.anchor), None)
        return None if found is None else self._unit([found], marker="", comment=None)

    def _unit(
        self, group: Sequence[Statement], *, marker: str, comment: MarkerComment | None
    ) -> Unit:
        first, last = group[0], group[-1]
        marker_line = comment.line if comment else first.start
        shown_from = min(marker_line, first.start)
        return Unit(
            path=self.path,
            marker=marker,
            marker_line=marker_line,
            own_line=comment.own_line if comment else False,
            start=first.start,
            end=last.end,
            scope=first.scope,
            kind=type(first.node).__name__,
            anchor=_anchor(first.node),
            key="\n".join(self.dump(s) for s in group),
            text="\n".join(self.lines[shown_from - 1 : last.end]),
        )


def parse_python(path: str, text: str, pattern: re.Pattern[str]) -> PythonFile:
    """Raises SyntaxError, ValueError (NUL bytes) or tokenize.TokenError on invalid Python."""
    tree = ast.parse(text)
    comments = python_marker_comments(text, pattern)
    parsed = PythonFile(path, split_lines(text), [], list(_statements(tree, "", 0)))
    spans: set[tuple[int, int]] = set()
    for comment in comments:
        group = _annotated(comment, parsed.statements)
        if group and (group[0].start, group[-1].end) not in spans:
            spans.add((group[0].start, group[-1].end))
            parsed.units.append(parsed._unit(group, marker=comment.marker, comment=comment))
    return parsed


def _statements(node: ast.AST, scope: str, depth: int) -> list[Statement]:
    found: list[Statement] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            decorators = getattr(child, "decorator_list", [])
            start = min([child.lineno, *(d.lineno for d in decorators)])
            end = child.end_lineno or child.lineno
            found.append(Statement(child, scope, depth, start, end))
            inner = f"{scope}.{child.name}".lstrip(".") if isinstance(child, _SCOPES) else scope
            found.extend(_statements(child, inner, depth + 1))
        elif isinstance(child, ast.excepthandler | ast.match_case):
            found.extend(_statements(child, scope, depth + 1))
    found.sort(key=lambda s: (s.start, s.depth))
    return found


def _annotated(comment: MarkerComment, statements: Sequence[Statement]) -> list[Statement]:
    line = comment.line
    containing = [s for s in statements if s.start <= line <= s.end]
    innermost = max((s.depth for s in containing), default=-1)
    if not comment.own_line or comment.in_brackets:
        # `a = 1; b = 2  # NO_REFAC` protects both statements on the line.
        return [s for s in containing if s.depth == innermost]
    # An own-line marker between a decorator and its `def` still protects that `def`.
    inner = [s for s in containing if s.depth == innermost]
    if inner and line <= inner[0].node.lineno:
        return inner[:1]
    after = [s for s in statements if s.start > line]
    if not after:
        return []
    first = min(s.start for s in after)
    return [min((s for s in after if s.start == first), key=lambda s: s.depth)]


def _anchor(node: ast.stmt) -> str:
    """What a statement is about: the name it defines, the target it assigns, the call it makes."""
    if isinstance(node, _SCOPES):
        return node.name
    if isinstance(node, ast.Assign):
        return ", ".join(ast.unparse(t) for t in node.targets)
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return ast.unparse(node.target)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return ast.unparse(node.value.func)
    return ""
