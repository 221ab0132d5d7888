"""Which Python statement each marker protects: ast for statement spans, tokenize for comments.

An own-line marker protects the next statement, a compound one whole (decorators included), or
the statement just above it when none follows in its block; a trailing marker, or one inside
brackets, protects the innermost statement on its line. A
statement's identity across revisions is ``ast.dump(node, include_attributes=False)``, so a
black/ruff reformat leaves it equal and any change to the syntax tree does not. Its context is
the control flow around it inside its scope (`if False:`, `else:`, after a `return`).
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import gc
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from gradgate.checks.protected.markers import (
    MarkerComment,
    Mention,
    Unit,
    python_marker_comments,
    split_lines,
)
from gradgate.checks.protected.statements import SCOPES, Lines, Statement, statements_of

_Table = dict[str, tuple[list[Statement], list[int]]]  # key -> statements, their first lines


@dataclass(slots=True)
class PythonFile:
    """One parsed revision of a Python file: its protected units and every statement in it."""

    path: str
    lines: list[str]
    units: list[Unit]
    statements: list[Statement]  # by (start, depth)
    unused: list[MarkerComment] = field(default_factory=list)  # markers that protect nothing
    mentions: list[Mention] = field(default_factory=list)  # marker words that are no marker
    _dumps: dict[int, str] = field(default_factory=dict)
    _by_key: dict[str, _Table] = field(default_factory=dict)  # per kind
    _by_anchor: dict[str, _Table] = field(default_factory=dict)
    _starts: list[int] = field(default_factory=list)
    _protected: set[tuple[int, int]] | None = None

    def dump(self, statement: Statement) -> str:
        key = id(statement.node)
        if key not in self._dumps:
            self._dumps[key] = ast.dump(statement.node, include_attributes=False)
        return self._dumps[key]

    def between(self, first: int, last: int) -> list[Statement]:
        """The statements that start on lines ``first..last``."""
        if not self._starts:
            self._starts = [s.start for s in self.statements]
        lo = bisect.bisect_left(self._starts, first)
        hi = bisect.bisect_right(self._starts, last)
        return self.statements[lo:hi]

    def protected_spans(self) -> set[tuple[int, int]]:
        if self._protected is None:
            self._protected = {(u.start, u.end) for u in self.units}
        return self._protected

    def bare(self, statement: Statement) -> Unit:
        """``statement`` as a unit without a marker: what a protected one became unprotected."""
        return self._unit([statement], marker="", comment=None)

    def unprotected(self, unit: Unit, *, same_scope: bool) -> Unit | None:
        """A statement here that is ``unit`` unchanged (or, failing that, the statement it was
        edited into, by scope, kind and anchor) but carries no marker."""
        protected = self.protected_spans()

        def fits(s: Statement) -> bool:
            return (s.start, s.end) not in protected and (s.scope == unit.scope or not same_scope)

        found = next((s for s in self._alike(unit, by_anchor=False)[0] if fits(s)), None)
        if found is None and same_scope and unit.anchor:
            found = next((s for s in self._alike(unit, by_anchor=True)[0] if fits(s)), None)
        return None if found is None else self.bare(found)

    def near(self, unit: Unit, first: int, last: int) -> list[Statement]:
        """Unprotected statements of the unit's kind and scope, with its tree or its anchor,
        that start on lines ``first..last``: found by index and bisect, not by a scan."""
        protected = self.protected_spans()
        found: dict[int, Statement] = {}
        for by_anchor in (False, True) if unit.anchor else (False,):
            group, starts = self._alike(unit, by_anchor=by_anchor)
            lo, hi = bisect.bisect_left(starts, first), bisect.bisect_right(starts, last)
            for s in group[lo:hi]:
                if s.scope == unit.scope and (s.start, s.end) not in protected:
                    found[id(s)] = s
        return list(found.values())

    def _alike(self, unit: Unit, *, by_anchor: bool) -> tuple[list[Statement], list[int]]:
        """Statements of the unit's node type with its dump (or anchor), in line order, and
        their first lines; the table is built once per file, kind and key."""
        cache = self._by_anchor if by_anchor else self._by_key
        if unit.kind not in cache:
            table: dict[str, tuple[list[Statement], list[int]]] = {}
            for s in self.statements:
                if type(s.node).__name__ == unit.kind:
                    key = anchor_of(s.node) if by_anchor else self.dump(s)
                    group, starts = table.setdefault(key, ([], []))
                    group.append(s)
                    starts.append(s.start)
            cache[unit.kind] = table
        return cache[unit.kind].get(unit.anchor if by_anchor else unit.key, ([], []))

    def _unit(
        self, group: Sequence[Statement], *, marker: str, comment: MarkerComment | None
    ) -> Unit:
        first, last = group[0], group[-1]
        marker_line = comment.line if comment else first.start
        shown_from, shown_to = min(marker_line, first.start), max(marker_line, last.end)
        return Unit(
            path=self.path,
            marker=marker,
            marker_line=marker_line,
            own_line=comment.own_line if comment else False,
            start=first.start,
            end=last.end,
            scope=first.scope,
            kind=type(first.node).__name__,
            anchor=anchor_of(first.node),
            key="\n".join(self.dump(s) for s in group),
            text="\n".join(self.lines[shown_from - 1 : shown_to]),
            context=first.context,
        )


@contextlib.contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """Parsing 1 MB of Python makes ~10^6 objects, none of them in cycles; the cyclic collector
    rescanning them all, again and again, more than doubled the time (refcounting still frees
    everything as usual)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def parse_python(path: str, text: str, pattern: re.Pattern[str]) -> PythonFile:
    """Raises SyntaxError, ValueError (NUL bytes), RecursionError (nesting past the limit) or
    tokenize.TokenError on what is not Python gradgate can read."""
    with _without_cyclic_gc():
        return _parse_python(path, text, pattern)


def _parse_python(path: str, text: str, pattern: re.Pattern[str]) -> PythonFile:
    tree = ast.parse(text)
    comments, mentions = python_marker_comments(text, pattern)
    statements = statements_of(tree)
    parsed = PythonFile(path, split_lines(text), [], statements, mentions=mentions)
    at = Lines(statements)
    spans: set[tuple[int, int]] = set()
    for comment in comments:
        group = at.annotated(comment)
        if not group:
            parsed.unused.append(comment)
        elif (group[0].start, group[-1].end) not in spans:
            spans.add((group[0].start, group[-1].end))
            parsed.units.append(parsed._unit(group, marker=comment.marker, comment=comment))
    return parsed


def anchor_of(node: ast.stmt) -> str:
    """What a statement is about: the name it defines, the target it assigns, the call it makes."""
    if isinstance(node, SCOPES):
        return node.name
    if isinstance(node, ast.Assign):
        return ", ".join(ast.unparse(t) for t in node.targets)
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return ast.unparse(node.target)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return ast.unparse(node.value.func)
    return ""
