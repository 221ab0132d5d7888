"""At the line: which of the PR's changed lines explains a model finding (issue 20, point 2).

The child reports where each module's class is written (``child.classes``); the PR's diff
gives the changed lines and the gradient-sensitive edits (``gradient.edits``: an added
`.detach()`, `no_grad`, `.data`, `requires_grad_`). A finding about a module points at, in
this order: an added edit of the kind that explains it inside the module's class or a class
around it (its parents in the model), the most specific first; a line the PR changed in those
classes; else the module's class definition, saying no line of it changed. Never a file the
PR did not change, unless it is the class itself.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gradgate.checks.context import CheckContext
from gradgate.checks.diff import LineSpan
from gradgate.checks.gradient.edits import GradientEdit, gradient_edits, needs_parse


@dataclass(frozen=True, slots=True)
class ClassSource:
    class_name: str
    file: str  # relative to the revision's root
    line: int  # its `forward`'s first line (the class's when forward is inherited)
    start: int = 0  # the class statement's first and last line (0: not known)
    end: int = 0


def parse_sources(value: Mapping[str, Any]) -> dict[str, ClassSource]:
    return {
        str(name): ClassSource(
            str(s["class"]),
            str(s["file"]),
            int(s["line"]),
            int(s.get("start") or s["line"]),
            int(s.get("end") or s["line"]),
        )
        for name, s in value.items()
    }


@dataclass(frozen=True, slots=True)
class PullDiff:
    """The PR's changed lines (head side, by head path) and gradient-sensitive edits."""

    head_lines: Mapping[str, tuple[LineSpan, ...]]
    edits: tuple[GradientEdit, ...] = ()


def read_diff(ctx: CheckContext) -> PullDiff:
    """The changed lines of ``ctx``, and the edits found in its changed Python files."""
    head_lines = {c.path: c.new_lines for c in ctx.changes if c.head_path is not None}
    files = []
    for change in ctx.changes:
        if not change.path.endswith(".py") or change.binary:
            continue
        old = ctx.source.read(ctx.base_sha, change.base_path) if change.base_path else None
        new = ctx.source.read(ctx.head_sha, change.path) if change.head_path else None
        if needs_parse(old, new):
            files.append((change.path, old, new))
    return PullDiff(head_lines, gradient_edits(files))


@dataclass(frozen=True, slots=True)
class Spot:
    file: str
    line: int
    changed: bool  # a line the PR changed; False: the class definition
    words: str  # what the line is, for the finding's message


def ancestors(module: str) -> list[str]:
    """`a.b.c` -> `a.b.c`, `a.b`, `a`, `` (the model)."""
    parts = module.split(".") if module else []
    return [".".join(parts[:n]) for n in range(len(parts), -1, -1)]


def locate(
    modules: Iterable[str],
    sources: Mapping[str, ClassSource],
    diff: PullDiff,
    *,
    constructs: Collection[str] = (),
    anywhere: bool = False,
) -> Spot | None:
    """The spot for a finding about ``modules`` (the first that has a class in the tree
    decides). ``constructs``: edit kinds that explain it (".detach()", "torch.no_grad"...);
    ``anywhere``: such an edit anywhere in the diff explains it (a freeze may be written
    in a training script or the factory, not in the class)."""
    chain: list[ClassSource] = []
    for module in modules:
        for name in ancestors(module):
            source = sources.get(name)
            if source is not None and source not in chain:
                chain.append(source)
        if chain:
            break
    added = [e for e in diff.edits if not e.removed and e.construct in constructs]
    for source in chain:
        for edit in added:
            if edit.path == source.file and source.start <= edit.line <= source.end:
                return Spot(edit.path, edit.line, True, _added(edit.construct))
    if anywhere and added:
        return Spot(added[0].path, added[0].line, True, _added(added[0].construct))
    for source in chain:
        line = changed_line(diff, source)
        if line is not None:
            words = f"it points at a line this PR changed in `{source.class_name}`"
            return Spot(source.file, line, True, words)
    if not chain:
        return None
    first = chain[0]
    return Spot(
        first.file,
        first.start or first.line,
        False,
        f"no line of `{first.class_name}` changed in this PR: it points at the class",
    )


def changed_line(diff: PullDiff, source: ClassSource) -> int | None:
    """The first changed head line inside the class, one in its `forward` first."""
    lines = [
        max(span.start, source.start)
        for span in diff.head_lines.get(source.file, ())
        if span.start <= source.end and span.end >= source.start
    ]
    in_forward = [n for n in lines if n >= source.line]
    return min(in_forward or lines) if lines else None


def _added(construct: str) -> str:
    return f"it points at the `{construct}` this PR added"
