"""Every call in a module, with what it calls as a qualified name: one walk of the tree.

A call is resolved the way a reader would, statically: through the module's imports and
definitions (`F.cross_entropy` -> `torch.nn.functional.cross_entropy`, `weighted_loss` ->
`pkg.losses.weighted_loss`), through `self` inside a class (`self.m(...)` is `Class.m`, or the
same method of a base class), and through instances made in the same module (`crit =
nn.CrossEntropyLoss()` then `crit(a, b)`; `self.crit = FocalLoss()` then `self.crit(a, b)`).
Calls it cannot resolve (`batch["fn"](x)`, an argument called) are left out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from enum import StrEnum

from gradgate.checks.api_contract.names import bind_import, dotted, is_package, module_name


class How(StrEnum):
    NAMED = "named"  # `f(...)`, `mod.f(...)`, `Class(...)`, `Class.method(...)`: target is the name
    INSTANCE = "instance"  # `obj(...)` on an instance of the class ``target``
    METHOD = "method"  # `obj.m(...)` or `self.m(...)`: target is `Class.m`


@dataclass(frozen=True, slots=True)
class Call:
    how: How
    target: str
    node: ast.Call
    also: tuple[str, ...] = ()  # `self.m(...)`: the same method on the class's bases

    @property
    def line(self) -> int:
        return self.node.lineno

    def targets(self) -> tuple[str, ...]:
        return (self.target, *self.also)


@dataclass(slots=True)
class _Walk:
    """What one walk collects before calls can be resolved (an instance may be made below)."""

    names: dict[str, str]
    calls: list[tuple[ast.Call, str | None]]
    made: dict[str, set[str]]  # local name -> the dotted callee that made it
    attrs: dict[tuple[str, str], set[str]]  # (class, attribute) -> the dotted callee
    bases: dict[str, list[str]]  # class -> its bases, dotted


def module_calls(tree: ast.Module, path: str) -> list[Call]:
    """The resolvable calls of the module at ``path``, in no particular order."""
    module = module_name(path)
    package = module if is_package(path) else module.rpartition(".")[0]
    walk = _walk(tree, module, package)
    out = []
    for node, scope in walk.calls:
        call = _resolve(node, scope, walk)
        if call is not None:
            out.append(call)
    return out


def _walk(tree: ast.Module, module: str, package: str) -> _Walk:
    names: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[stmt.name] = f"{module}.{stmt.name}"
    walk = _Walk(names, [], {}, {}, {})
    _visit(tree, None, module, package, walk)
    return walk


def _visit(root: ast.AST, scope: str | None, module: str, package: str, walk: _Walk) -> None:
    """Collect calls, instances made, classes and imports below ``root`` (hot: every node of
    every file passes here, so children are read from `_fields` directly, not through the
    slower `ast.iter_child_nodes` generator)."""
    stack = [root]
    pop, push, extend = stack.pop, stack.append, stack.extend
    calls = walk.calls
    for_class = scope
    while stack:
        node = pop()
        kind = type(node)
        if kind is ast.Call:
            calls.append((node, for_class))  # type: ignore[arg-type]
        elif kind is ast.Assign or kind is ast.AnnAssign:
            _made(node, for_class, walk)  # type: ignore[arg-type]
        elif kind is ast.ClassDef:
            assert isinstance(node, ast.ClassDef)
            inner = f"{for_class or module}.{node.name}"
            walk.bases[inner] = [".".join(p) for b in node.bases if (p := dotted(b))]
            extend([*node.bases, *node.keywords, *node.decorator_list])  # outside the class
            for stmt in node.body:
                _visit(stmt, inner, module, package, walk)
            continue
        elif kind is ast.Name or kind is ast.Constant:
            continue  # leaves (a Name's only child is its Load/Store context)
        elif kind is ast.Attribute:
            push(node.value)  # type: ignore[attr-defined]
            continue
        elif kind is ast.Import or kind is ast.ImportFrom:
            bind_import(node, package, walk.names)  # type: ignore[arg-type]
            continue
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                extend([item for item in value if isinstance(item, ast.AST)])
            elif isinstance(value, ast.AST):
                push(value)


def _made(node: ast.Assign | ast.AnnAssign, scope: str | None, walk: _Walk) -> None:
    """`x = C(...)` and `self.x = C(...)`: remember what made the instance."""
    value = node.value
    if not isinstance(value, ast.Call) or (callee := dotted(value.func)) is None:
        return
    made = ".".join(callee)
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if isinstance(target, ast.Name):
            walk.made.setdefault(target.id, set()).add(made)
        elif (
            scope is not None
            and isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            walk.attrs.setdefault((scope, target.attr), set()).add(made)


def _qualify(name: str, walk: _Walk) -> str | None:
    root, dot, rest = name.partition(".")
    bound = walk.names.get(root)
    return None if bound is None else bound + dot + rest


def _instance(made: set[str] | None, walk: _Walk) -> str | None:
    """The class an instance was made from, when every assignment agrees."""
    if not made or len(made) > 1:
        return None
    return _qualify(next(iter(made)), walk)


def _resolve(node: ast.Call, scope: str | None, walk: _Walk) -> Call | None:
    func = node.func
    if isinstance(func, ast.Call):  # `nn.CrossEntropyLoss()(a, b)`
        inner = dotted(func.func)
        cls = None if inner is None else _qualify(".".join(inner), walk)
        return None if cls is None else Call(How.INSTANCE, cls, node)
    parts = dotted(func)
    if parts is None:
        return None
    root = parts[0]
    if root in ("self", "cls") and scope is not None and len(parts) in (2, 3):
        cls = _instance(walk.attrs.get((scope, parts[1])), walk)
        if cls is not None:
            if len(parts) == 2:
                return Call(How.INSTANCE, cls, node)
            return Call(How.METHOD, f"{cls}.{parts[2]}", node)
        if len(parts) == 2:
            bases = tuple(
                f"{q}.{parts[1]}" for b in walk.bases.get(scope, ()) if (q := _qualify(b, walk))
            )
            return Call(How.METHOD, f"{scope}.{parts[1]}", node, bases)
        return None
    if root in walk.made and len(parts) <= 2:
        cls = _instance(walk.made[root], walk)
        if cls is None:
            return None
        if len(parts) == 1:
            return Call(How.INSTANCE, cls, node)
        return Call(How.METHOD, f"{cls}.{parts[1]}", node)
    qualified = _qualify(".".join(parts), walk)
    return None if qualified is None else Call(How.NAMED, qualified, node)
