"""Every call in a module, with what it calls as a qualified name: one walk of the tree.

A call is resolved the way a reader would, statically: through the module's imports and
definitions (`F.cross_entropy` -> `torch.nn.functional.cross_entropy`, `weighted_loss` ->
`pkg.losses.weighted_loss`), through `self` inside a class (`self.m(...)` is `Class.m`, or the
same method of a base class), and through the names the module binds (``bindings``): aliases
and partials (`loss_fn = F.cross_entropy`), instances (`crit = nn.CrossEntropyLoss()`,
`self.crit = FocalLoss()`, `model = GPT.from_pretrained(name)`, a parameter `model: GPT`).
A method called on something whose type is unknown (`model.configure_optimizers(...)` on a
parameter) is kept by its name alone, as PROBABLE. Other calls (`batch["fn"](x)`, an argument
called) are left out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gradgate.checks.api_contract.bindings import MODULE, Bindings, How, Meaning
from gradgate.checks.api_contract.names import bind_import, dotted, is_package, module_name

__all__ = ["Call", "How", "module_calls"]

_FUNCTIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})
_BINDS = frozenset({ast.Assign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr})


@dataclass(frozen=True, slots=True)
class Call:
    how: How
    target: str
    node: ast.Call  # the call as written
    also: tuple[str, ...] = ()  # `self.m(...)`: the same method on the class's bases
    bound: ast.Call | None = None  # through `functools.partial`: the call it makes

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def effective(self) -> ast.Call:
        """The call as the callee receives it: a partial's arguments first."""
        return self.bound or self.node

    def targets(self) -> tuple[str, ...]:
        return (self.target, *self.also)


@dataclass(slots=True)
class _Walk:
    """What one walk collects before calls can be resolved (an instance may be made below)."""

    module: str
    package: str
    names: Bindings
    calls: list[tuple[ast.Call, str | None, int]]  # the call, its class, its function scope


def module_calls(tree: ast.Module, path: str) -> list[Call]:
    """The resolvable calls of the module at ``path``, in no particular order."""
    module = module_name(path)
    package = module if is_package(path) else module.rpartition(".")[0]
    names: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[stmt.name] = f"{module}.{stmt.name}"
    walk = _Walk(module, package, Bindings(names), [])
    _visit([tree], None, MODULE, walk, in_class_body=False)
    out = []
    for node, cls, scope in walk.calls:
        call = _resolve(node, cls, scope, walk.names)
        if call is not None:
            out.append(call)
    return out


def _visit(
    roots: list[ast.AST], cls: str | None, scope: int, walk: _Walk, *, in_class_body: bool
) -> None:
    """Collect calls, bindings, classes and imports below ``roots`` (hot: every node of every
    file passes here, so children are read from `_fields` directly, not through the slower
    `ast.iter_child_nodes` generator)."""
    stack = roots[::-1]
    pop, push, extend = stack.pop, stack.append, stack.extend
    calls, names = walk.calls, walk.names
    while stack:
        node = pop()
        kind = type(node)
        if kind is ast.Name or kind is ast.Constant:
            continue  # leaves (a Name's only child is its Load/Store context): the most common
        if kind is ast.Attribute:
            push(node.value)  # type: ignore[attr-defined]
            continue
        if kind is ast.Call:
            calls.append((node, cls, scope))  # type: ignore[arg-type]
        elif kind in _BINDS:
            _binds(node, cls, scope, names, in_class_body=in_class_body)
        elif kind is ast.ClassDef:
            assert isinstance(node, ast.ClassDef)
            inner = f"{cls or walk.module}.{node.name}"
            names.bases[inner] = [".".join(p) for b in node.bases if (p := dotted(b))]
            extend([*node.bases, *node.keywords, *node.decorator_list])  # outside the class
            _visit(node.body, inner, scope, walk, in_class_body=True)  # type: ignore[arg-type]
            continue
        elif kind in _FUNCTIONS:
            _function(node, cls, scope, walk)  # type: ignore[arg-type]
            continue
        elif kind is ast.Import or kind is ast.ImportFrom:
            bind_import(node, walk.package, names.names)  # type: ignore[arg-type]
            continue
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                extend([item for item in value if isinstance(item, ast.AST)])
            elif isinstance(value, ast.AST):
                push(value)


def _binds(
    node: ast.AST, cls: str | None, scope: int, names: Bindings, *, in_class_body: bool
) -> None:
    """The names an assignment, a loop, a `with ... as` or a `:=` binds."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            names.assign(target, node.value, scope, cls, in_class_body=in_class_body)
    elif isinstance(node, ast.AnnAssign):
        names.assign(node.target, node.value, scope, cls, in_class_body=in_class_body,
                     annotation=node.annotation)  # fmt: skip
    elif isinstance(node, ast.For | ast.AsyncFor):
        names.assign(ast.Tuple([node.target]), None, scope, cls, in_class_body=False)
    elif isinstance(node, ast.withitem):
        if node.optional_vars is not None:
            names.assign(ast.Tuple([node.optional_vars]), None, scope, cls, in_class_body=False)
    elif isinstance(node, ast.NamedExpr):
        names.assign(node.target, node.value, scope, cls, in_class_body=False)


def _function(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, cls: str | None, scope: int,
    walk: _Walk,
) -> None:  # fmt: skip
    """A function's decorators, defaults and annotations belong to the enclosing scope; its
    parameters and body to a scope of its own."""
    args = node.args
    outside: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if not isinstance(node, ast.Lambda):
        outside += node.decorator_list
    _visit(outside, cls, scope, walk, in_class_body=False)
    inner = id(node)
    walk.names.parents[inner] = scope
    walk.names.parameters(args, inner, cls)
    body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else [*node.body]
    _visit(body, cls, inner, walk, in_class_body=False)


def _resolve(node: ast.Call, cls: str | None, scope: int, names: Bindings) -> Call | None:
    func = node.func
    if isinstance(func, ast.Call):  # `nn.CrossEntropyLoss()(a, b)`
        inner = dotted(func.func)
        made = None if inner is None else names.meaning(inner, scope, cls)
        if made is None or made.how is not How.NAMED or made.partial is not None:
            return None
        return Call(How.INSTANCE, made.name, node)
    parts = dotted(func)
    meaning = None if parts is None else names.meaning(parts, scope, cls)
    if meaning is None:
        if isinstance(func, ast.Attribute):  # a method of something unknown
            return _super(node, func, cls, names) or Call(How.PROBABLE, func.attr, node)
        return None
    return _call(node, meaning)


def _call(node: ast.Call, meaning: Meaning) -> Call:
    partial = meaning.partial
    if partial is None:
        return Call(meaning.how, meaning.name, node, meaning.also)
    bound = ast.Call(
        func=partial.args[0],
        args=[*partial.args[1:], *node.args],
        keywords=[*partial.keywords, *node.keywords],
    )
    return Call(meaning.how, meaning.name, node, meaning.also, ast.copy_location(bound, node))


def _super(node: ast.Call, func: ast.Attribute, cls: str | None, names: Bindings) -> Call | None:
    """`super().m(...)` in a method: the method of the class's bases."""
    inner = func.value
    if not (
        cls is not None
        and isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Name)
        and inner.func.id == "super"
    ):
        return None
    found = [f"{q}.{func.attr}" for b in names.bases.get(cls, ()) if (q := names.qualify(b))]
    return Call(How.METHOD, found[0], node, tuple(found[1:])) if found else None
