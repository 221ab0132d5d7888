"""The call sites at head that a set of signature changes affect: one pass over the tree.

Every changed signature becomes one or more targets (a function by name, a constructor by its
class, `forward` by calls of an instance, a method by `obj.m` and `self.m`), indexed by their
last name. Each Python file at head is read once; one that mentions none of those names is not
even parsed; the others are walked once (`calls`), and each call is looked up in the index.
The cost is one walk per file, however many signatures changed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gradgate.checks.api_contract.calls import Call, How
from gradgate.checks.api_contract.changes import Change, Effect, effects
from gradgate.checks.api_contract.names import names_match
from gradgate.checks.api_contract.signatures import Kind
from gradgate.checks.api_contract.sources import Sources

_SHOWN = 80  # characters of a call shown in a message


@dataclass(frozen=True, slots=True)
class _Target:
    change: Change
    how: How
    name: str  # the qualified name a call must resolve to
    implicit: int  # parameters the call fills itself


@dataclass(frozen=True, slots=True)
class CallSite:
    path: str
    line: int
    code: str  # the call as code, shortened
    effects: tuple[Effect, ...]


def _targets(change: Change) -> Iterable[tuple[str, _Target]]:
    """(last name, target) for each way of calling what ``change`` changed."""
    head = change.head
    if head.kind is Kind.FUNCTION:
        yield change.full.rpartition(".")[2], _Target(change, How.NAMED, change.full, 0)
        return
    cls, _, method = change.full.rpartition(".")
    by_instance = head.implicit(via_instance=True)
    yield method, _Target(change, How.METHOD, change.full, by_instance)
    yield method, _Target(change, How.NAMED, change.full, head.implicit(via_instance=False))
    short = cls.rpartition(".")[2]
    if method == "__init__":
        yield short, _Target(change, How.NAMED, cls, 1)
    elif method in ("forward", "__call__"):
        yield short, _Target(change, How.INSTANCE, cls, 1)


def affected_calls(
    changes: list[Change],
    sources: Sources,
    paths: Iterable[str],
    changed: Mapping[str, str | None],
) -> dict[str, list[CallSite]]:
    """Change's qualified name -> the call sites it affects, in path and line order.

    ``paths``: the Python files at head; ``changed``: head path -> base path (None: added) of
    the files this change touches. A call in a file it does not touch, or one that stood the
    same at base, was written for the base signature."""
    index: dict[str, list[_Target]] = {}
    for change in changes:
        for last, target in _targets(change):
            index.setdefault(last, []).append(target)
    found: dict[str, list[CallSite]] = {change.full: [] for change in changes}
    if not index:
        return found
    mentions = re.compile(rb"\b(?:" + b"|".join(re.escape(k.encode()) for k in index) + rb")\b")
    base_calls: dict[str, set[str]] = {}
    for path in paths:
        data = sources.read("head", path)
        if data is None or not mentions.search(data):
            continue
        for call in sources.calls("head", path):
            for target in _matches(call, index):
                unchanged = path not in changed or _stood_at_base(
                    call, changed[path], sources, base_calls
                )
                said = effects(
                    target.change, call.node, implicit=target.implicit, unchanged=unchanged
                )
                if said:
                    site = CallSite(path, call.line, _shown(call.node), tuple(said))
                    found[target.change.full].append(site)
    for sites in found.values():
        sites.sort(key=lambda s: (s.path, s.line))
    return found


def _matches(call: Call, index: dict[str, list[_Target]]) -> list[_Target]:
    out: list[_Target] = []
    for name in call.targets():
        for target in index.get(name.rpartition(".")[2], ()):
            if target.how is call.how and names_match(name, target.name) and target not in out:
                out.append(target)
    return out[:1]  # one call binds one signature


def _stood_at_base(
    call: Call, base_path: str | None, sources: Sources, cache: dict[str, set[str]]
) -> bool:
    if base_path is None:
        return False
    if base_path not in cache:
        cache[base_path] = {ast.dump(c.node) for c in sources.calls("base", base_path)}
    return ast.dump(call.node) in cache[base_path]


def _shown(node: ast.Call) -> str:
    code = ast.unparse(node)
    return code if len(code) <= _SHOWN else code[: _SHOWN - 1] + "…"
