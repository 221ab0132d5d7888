"""Could a variant of the model run these untested lines, and what turns them on? (pure)

The model did not run some of the PR's changed lines (``model.coverage``). Two kinds differ in
what a reader can do about them (issue 36):

- lines a forward pass could reach: in `forward` or `__init__`, in what they call, or in a
  function at a module's top level (another file may call it). When an `if` guards them, its
  condition names what turns them on: a constructor flag (`self.flash`, a parameter of
  `__init__`), a config key (`config.rotary`, `self.cfg.rotary`). A variant with it on covers
  them (``named``). A guard that is a local, a helper's result or a `forward` argument
  (`if block_begin and exists(transform_block_inputs)`) names nothing a variant sets.
- lines no forward pass reaches: a method that neither `forward`, `__init__` nor anything they
  call calls (`configure_optimizers`, `from_pretrained`, `estimate_mfu`). No variant helps.

Read from the file's text alone; a file that does not parse is all "could reach", unguarded.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence
from dataclasses import dataclass

_ENTRIES = frozenset({"forward", "__init__", "__call__"})
_CONFIGS = frozenset({"config", "cfg", "conf", "args", "opt", "hparams", "params", "settings"})
Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Reach:
    """One file's untested ranges, parted."""

    file: str
    reachable: Ranges  # a variant could run them
    guards: tuple[str, ...]  # what turns them on: `flash`, `config.rotary`
    named: Ranges  # those of ``reachable`` under a guard that names a flag
    unreached: Ranges  # no forward pass runs them
    functions: tuple[str, ...]  # the functions those are in: `GPT.configure_optimizers`


def reach(
    file: str,
    ranges: Sequence[tuple[int, int]],
    source: str | None,
    ran: Collection[int] = (),
) -> Reach:
    """``ran``: lines of the file that ran: a function one of them is in was reached, whoever
    called it (a call from another file is not in this one's text)."""
    tree = _parse(source)
    if tree is None:
        return Reach(file, tuple(ranges), (), (), (), ())
    functions = _functions(tree)
    live = _reachable(functions)
    live |= {f.qualname for f in functions for n in ran if _inside(f, n)}
    reachable: list[tuple[int, int]] = []
    named: list[tuple[int, int]] = []
    unreached: list[tuple[int, int]] = []
    guards: list[str] = []
    names: list[str] = []
    for start, end in ranges:
        owner = _innermost(functions, start)
        if owner is None or owner.qualname in live:
            reachable.append((start, end))
            flags = _guards(owner.node if owner else tree, start, _constructor(owner))
            flags = flags or _built_under(tree, functions, start)
            guards += flags
            if flags:
                named.append((start, end))
        else:
            unreached.append((start, end))
            names.append(owner.qualname)
    return Reach(
        file,
        tuple(reachable),
        tuple(dict.fromkeys(guards)),
        tuple(named),
        tuple(unreached),
        tuple(dict.fromkeys(names)),
    )


@dataclass(frozen=True, slots=True)
class _Function:
    qualname: str  # `GPT.forward`, `fused`
    name: str
    method: bool
    node: ast.FunctionDef | ast.AsyncFunctionDef


def _parse(source: str | None) -> ast.Module | None:
    if source is None:
        return None
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _functions(tree: ast.Module) -> list[_Function]:
    out: list[_Function] = []

    def walk(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                walk(stmt.body, f"{prefix}{stmt.name}.", True)
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                out.append(_Function(f"{prefix}{stmt.name}", stmt.name, in_class, stmt))
                walk(stmt.body, f"{prefix}{stmt.name}.", False)

    walk(tree.body, "", False)
    return out


def _reachable(functions: list[_Function]) -> set[str]:
    """Entries, functions at a module's top level, and what they call by name (a fixed point)."""
    live = {f.qualname for f in functions if f.name in _ENTRIES or not f.method}
    by_name: dict[str, list[str]] = {}
    for f in functions:
        by_name.setdefault(f.name, []).append(f.qualname)
    nodes = {f.qualname: f.node for f in functions}
    todo = list(live)
    while todo:
        for called in _called(nodes[todo.pop()]):
            for qualname in by_name.get(called, ()):
                if qualname not in live:
                    live.add(qualname)
                    todo.append(qualname)
    # A nested function lives with the function it is defined in.
    return live | {q for q in nodes if any(q.startswith(f"{p}.") for p in live)}


def _called(node: ast.AST) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                names.add(func.attr)
    return names


def _inside(function: _Function, line: int) -> bool:
    return function.node.lineno < line <= (function.node.end_lineno or 0)


def _innermost(functions: list[_Function], line: int) -> _Function | None:
    around = [f for f in functions if f.node.lineno <= line <= (f.node.end_lineno or 0)]
    return max(around, key=lambda f: f.node.lineno) if around else None


def _built_under(tree: ast.Module, functions: list[_Function], line: int) -> list[str]:
    """Lines of a class no `if` guards inside it run when the class is built: the flags that
    guard where this file builds it (`AttentionResidual(...)` under `elif
    attn_aggregated_residuals:` in another module's `__init__`), the first such place's."""
    around = [
        c
        for c in ast.walk(tree)
        if isinstance(c, ast.ClassDef) and c.lineno <= line <= (c.end_lineno or 0)
    ]
    if not around:
        return []
    name = max(around, key=lambda c: c.lineno).name
    for f in functions:
        for call in ast.walk(f.node):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if called == name and _innermost(functions, call.lineno) is f:
                flags = _guards(f.node, call.lineno, _constructor(f))
                if flags:
                    return flags
    return []


def _constructor(owner: _Function | None) -> frozenset[str]:
    """The parameters of ``owner`` when it is a constructor: flags a variant sets."""
    if owner is None or owner.name != "__init__":
        return frozenset()
    args = owner.node.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return frozenset(names - {"self", "cls"})


def _guards(scope: ast.AST, line: int, flags: Collection[str] = ()) -> list[str]:
    """What the `if`s around ``line`` test: `flash` for `self.flash`, `config.rotary`, a
    parameter of the constructor among ``flags``, and `not flash` where the lines run when it is
    false (`if not self.flash`, an `else`)."""
    found: list[str] = []
    for node in ast.walk(scope):
        if not isinstance(node, ast.If | ast.IfExp):
            continue
        body = node.body if isinstance(node.body, list) else [node.body]
        orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
        in_body, in_else = _within(body, line), _within(orelse, line)
        if not (in_body or in_else):
            continue
        test, negated = node.test, in_else and not in_body
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, not negated
        found += [f"not {f}" if negated else f for f in _flags(test, flags)]
    return found


def _within(statements: Sequence[ast.AST], line: int) -> bool:
    return any(
        isinstance(s, ast.stmt | ast.expr) and s.lineno <= line <= (s.end_lineno or s.lineno)
        for s in statements
    )


def _flags(test: ast.expr, parameters: Collection[str]) -> list[str]:
    out = []
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = node.value.id
            if owner == "self":
                out.append(node.attr)
            elif owner in _CONFIGS:
                out.append(f"{owner}.{node.attr}")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in _CONFIGS
        ):
            out.append(f"{node.value.attr}.{node.attr}")  # `self.config.rotary`
    if not out:  # a constructor's parameter; never a local, a helper or a forward argument
        out = [n.id for n in ast.walk(test) if isinstance(n, ast.Name) and n.id in parameters]
    return [o for o in out if o not in _CONFIGS]
