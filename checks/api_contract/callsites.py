"""The call sites at head that a set of signature changes affect, gathered in one pass.

Every changed signature becomes one or more targets (a function by name, a constructor by its
class, `forward` by calls of an instance, a method by `obj.m` and `self.m`), indexed by their
last name. The check's single pass over the Python files at head asks `mentions` of each
file's bytes (a file that names none of them is not even parsed) and hands the resolved calls
of the others to `collect`. The cost is one walk per file, however many signatures changed.

A method called on something of unknown type (`model.configure_optimizers(...)` on a
parameter) is *probably* a call site when no other `def` in the repository has that name: the
files that could hold one are the files that mention it, all of which `collect` sees.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from gradgate.checks.api_contract.calls import Call, How
from gradgate.checks.api_contract.changes import Change, Effect, effects
from gradgate.checks.api_contract.names import names_match
from gradgate.checks.api_contract.signatures import Kind
from gradgate.checks.api_contract.sources import Sources

_SHOWN = 80  # characters of a call shown in a message
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


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
    probable: bool = False  # the receiver's type is unknown; the method's name is unique


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


@dataclass(slots=True)
class CallIndex:
    """The changes whose callers matter, and the affected call sites found so far."""

    changes: list[Change]
    index: dict[str, list[_Target]] = field(default_factory=dict)
    found: dict[str, list[CallSite]] = field(default_factory=dict)  # change -> its call sites
    _words: frozenset[bytes] = frozenset()  # the targets' last names
    _unusual: tuple[bytes, ...] = ()  # those with non-ASCII letters (a substring test)
    # base path -> its calls by the callee's last name (dumped only when a head call asks)
    _base_calls: dict[str, dict[str, list[ast.Call]]] = field(default_factory=dict)
    _defs: re.Pattern[bytes] | None = None  # a `def` of a changed method's name
    _defined: Counter[str] = field(default_factory=Counter)  # method name -> `def`s seen

    def __post_init__(self) -> None:
        methods = set()
        for change in self.changes:
            self.found[change.full] = []
            for last, target in _targets(change):
                self.index.setdefault(last, []).append(target)
                if target.how is How.METHOD:
                    methods.add(last)
        self._words = frozenset(k.encode() for k in self.index)
        self._unusual = tuple(w for w in self._words if not w.isascii())
        if methods:
            words = b"|".join(re.escape(k.encode()) for k in sorted(methods))
            self._defs = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+(" + words + rb")\b", re.M)

    def mentions(self, data: bytes) -> bool:
        """Can the file hold a call of a target? (It names one: a cheap test on the bytes. The
        file's words as a set, not one pattern of every name: with thousands of changed
        signatures, as in a model library's release, such a pattern took seconds a file.)"""
        if any(w in data for w in self._unusual):  # the pattern's words are ASCII only
            return True
        return bool(self._words) and not self._words.isdisjoint(_WORD.findall(data))

    def collect(
        self,
        path: str,
        calls: list[Call],
        sources: Sources,
        base_path: str | None,
        *,
        changed: bool,
    ) -> None:
        """Record the affected calls among a head file's ``calls``. ``changed``: the PR touches
        the file (``base_path``: where it was at base; None when added), so a call there may
        have been written for the new signature."""
        if self._defs is not None:
            data = sources.read("head", path) or b""
            self._defined.update(m.group(1).decode() for m in self._defs.finditer(data))
        for call in calls:
            target = self._match(call)
            if target is None:
                continue
            unchanged = not changed or self._stood(path, call, sources, base_path)
            said = effects(
                target.change, call.effective, implicit=target.implicit, unchanged=unchanged
            )
            if said:
                probable = call.how is How.PROBABLE
                site = CallSite(path, call.line, _shown(call.node), tuple(said), probable)
                self.found[target.change.full].append(site)

    def sites(self, change: Change) -> list[CallSite]:
        """The affected call sites of ``change``; the probable ones only while no other `def`
        in the repository has the method's name."""
        unique = self._defined[change.full.rpartition(".")[2]] <= 1
        found = [s for s in self.found.get(change.full, []) if unique or not s.probable]
        return sorted(found, key=lambda s: (s.path, s.line))

    def _match(self, call: Call) -> _Target | None:
        if call.how is How.PROBABLE:
            for target in self.index.get(call.target, ()):
                if target.how is How.METHOD:
                    return target
            return None
        for name in call.targets():
            for target in self.index.get(name.rpartition(".")[2], ()):
                if target.how is call.how and names_match(name, target.name):
                    return target  # one call binds one signature
        return None

    def _stood(self, path: str, call: Call, sources: Sources, base_path: str | None) -> bool:
        """Did this call stand the same at base: its text, or failing that its syntax tree?"""
        if base_path is None:
            return False
        if sources.in_base(sources.text(path, call.node), [base_path]):
            return True
        if base_path not in self._base_calls:  # reformatted or new: ask the trees (rarely)
            tree = sources.parse("base", base_path)
            by_callee: dict[str, list[ast.Call]] = {}
            for node in () if tree is None else ast.walk(tree):
                if isinstance(node, ast.Call):
                    by_callee.setdefault(_callee(node), []).append(node)
            self._base_calls[base_path] = by_callee
        dumped = ast.dump(call.node)
        same = self._base_calls[base_path].get(_callee(call.node), ())
        return any(ast.dump(node) == dumped for node in same)


def _callee(node: ast.Call) -> str:
    """The last name of what a call calls (`f`, `obj.m` -> `m`); "" for anything else."""
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _shown(node: ast.Call) -> str:
    code = ast.unparse(node)
    return code if len(code) <= _SHOWN else code[: _SHOWN - 1] + "…"
