"""What a name in a function, or an attribute of `self`, stands for: bindings and their meaning.

One walk of a module records each binding where it meets it (``Bindings.bind``); what a
binding means is worked out only when a call asks (``Bindings.meaning``), once the whole module
has been walked, since an import may sit below the function that uses it. Statically, as a
reader would:

- `x = C(...)`, `x = C.from_...(...)`: an instance of the class `C` (a callee named in
  CapWords, or a `from_` constructor; `x = build()` says nothing about `x`);
- `x = F.cross_entropy`, `x = functools.partial(f, ...)`: another name for the callable, with
  the partial's arguments;
- `x: C = ...` and a parameter `x: C` (`C | None`, `Optional[C]`, `"C"` too): an instance of `C`;
- `x = x.to(device)`, `x = torch.compile(x)`, `x = DDP(x)`: what `x` was (wrappers forward
  to, or hold, the same model);
- any other assignment, a loop variable, an unannotated parameter: unknown, and it hides the
  same name in the enclosing scopes (a parameter `loss_fn` is not the module's `loss_fn`).

A name bound more than once means something only when every binding agrees (`model =
GPT(cfg)` in one branch, `model = GPT.from_pretrained(name)` in the other).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from enum import StrEnum

from gradgate.checks.api_contract.names import dotted

_DEPTH = 6  # aliases of aliases followed at most this deep (`a = b`, `b = a` ends here)
MODULE = 0  # the scope of the module's top level


class How(StrEnum):
    NAMED = "named"  # `f(...)`, `mod.f(...)`, `Class(...)`, `Class.method(...)`: target is the name
    INSTANCE = "instance"  # `obj(...)` on an instance of the class ``target``
    METHOD = "method"  # `obj.m(...)` or `self.m(...)`: target is `Class.m`
    PROBABLE = "probable"  # `obj.m(...)`, the type of `obj` unknown: target is `m` alone


@dataclass(frozen=True, slots=True)
class Meaning:
    how: How  # NAMED: the callable ``name``; INSTANCE: an instance of it; METHOD: a bound method
    name: str
    partial: ast.Call | None = None  # `functools.partial(name, ...)`: its arguments come first
    also: tuple[str, ...] = ()  # `self.m`: the same method on the class's bases


@dataclass(frozen=True, slots=True)
class _Bound:
    how: str  # "made" | "alias" | "annotated" | "unknown"
    expr: ast.expr | None  # the call that made it, the aliased name, or the annotation
    scope: int  # the function it was bound in (its names are read there)
    cls: str | None  # the class whose code bound it (for `self` there)


_UNKNOWN = _Bound("unknown", None, MODULE, None)


@dataclass(slots=True)
class Bindings:
    """The bindings of one module, and the meaning of a dotted name in one of its scopes."""

    names: dict[str, str]  # module-level imports and definitions -> qualified names
    bases: dict[str, list[str]] = field(default_factory=dict)  # class -> its bases, dotted
    parents: dict[int, int] = field(default_factory=dict)  # function scope -> enclosing scope
    _binds: dict[tuple[int, str], list[_Bound]] = field(default_factory=dict)
    _attrs: dict[tuple[str, str], list[_Bound]] = field(default_factory=dict)
    _memo: dict[int, Meaning | None] = field(default_factory=dict)  # id(bound list) -> meaning

    # --- recording (during the walk) ---------------------------------------------------------

    def assign(
        self, target: ast.expr, value: ast.expr | None, scope: int, cls: str | None, *,
        in_class_body: bool, annotation: ast.expr | None = None,
    ) -> None:  # fmt: skip
        """`target = value` (or `target: annotation = value`) in ``scope``."""
        if isinstance(target, ast.Name):
            bound = _bound(target.id, value, annotation, scope, cls)
            if bound is None:
                return
            if in_class_body and cls is not None:  # a class attribute, read as `self.x`
                self._attrs.setdefault((cls, target.id), []).append(bound)
            else:
                self._binds.setdefault((scope, target.id), []).append(bound)
        elif isinstance(target, ast.Attribute):
            if cls is not None and isinstance(target.value, ast.Name) and target.value.id == "self":
                bound = _bound(None, value, annotation, scope, cls)
                if bound is not None:
                    self._attrs.setdefault((cls, target.attr), []).append(bound)
        elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self._binds.setdefault((scope, name.id), []).append(_UNKNOWN)

    def parameters(self, args: ast.arguments, scope: int, cls: str | None) -> None:
        """A function's parameters, bound in its own ``scope``."""
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for arg in every:
            bound = _UNKNOWN if arg.annotation is None else _Bound("annotated", arg.annotation,
                                                                   scope, cls)  # fmt: skip
            self._binds.setdefault((scope, arg.arg), []).append(bound)

    # --- meaning (once the walk is done) ---------------------------------------------------

    def qualify(self, name: str) -> str | None:
        root, dot, rest = name.partition(".")
        bound = self.names.get(root)
        return None if bound is None else bound + dot + rest

    def meaning(
        self, parts: list[str], scope: int, cls: str | None, depth: int = 0
    ) -> Meaning | None:
        """What the dotted name ``parts`` stands for in ``scope`` (in a method of ``cls``)."""
        if depth > _DEPTH:
            return None
        root, rest = parts[0], parts[1:]
        if root in ("self", "cls") and cls is not None:
            if not rest:
                return Meaning(How.INSTANCE, cls)
            bounds = self._attrs.get((cls, rest[0]))
            if bounds is None:
                if len(rest) > 1:
                    return None
                return self._method(cls, rest[0])
            return self._follow(self._agree(bounds, depth), rest[1:])
        bounds = self._lookup(root, scope)
        if bounds is None:
            qualified = self.qualify(".".join(parts))
            return None if qualified is None else Meaning(How.NAMED, qualified)
        return self._follow(self._agree(bounds, depth), rest)

    def _method(self, cls: str, name: str) -> Meaning:
        """`name` of class ``cls``, or of its bases when ``cls`` is defined in this module."""
        also = tuple(f"{q}.{name}" for b in self.bases.get(cls, ()) if (q := self.qualify(b)))
        return Meaning(How.METHOD, f"{cls}.{name}", also=also)

    def _follow(self, base: Meaning | None, rest: list[str]) -> Meaning | None:
        """``base`` then its attributes ``rest``: a method of an instance, a name in a module."""
        if base is None or not rest:
            return base
        if base.how is How.INSTANCE and len(rest) == 1:
            return self._method(base.name, rest[0])
        if base.how is How.NAMED and base.partial is None:
            return Meaning(How.NAMED, ".".join([base.name, *rest]))
        return None

    def _lookup(self, name: str, scope: int) -> list[_Bound] | None:
        while True:
            found = self._binds.get((scope, name))
            if found is not None or scope == MODULE:
                return found
            scope = self.parents.get(scope, MODULE)

    def _agree(self, bounds: list[_Bound], depth: int) -> Meaning | None:
        key = id(bounds)
        if key not in self._memo:
            self._memo[key] = None  # while it is worked out: a cycle means nothing
            meanings = {self._of(b, depth + 1) for b in bounds}
            self._memo[key] = meanings.pop() if len(meanings) == 1 else None
        return self._memo[key]

    def _of(self, bound: _Bound, depth: int) -> Meaning | None:
        expr = bound.expr
        if bound.how == "annotated":
            parts = _annotated(expr)
            named = None if parts is None else self.meaning(parts, bound.scope, bound.cls, depth)
            return Meaning(How.INSTANCE, named.name) if named and named.how is How.NAMED else None
        if bound.how == "alias" and expr is not None and (parts := dotted(expr)) is not None:
            return self.meaning(parts, bound.scope, bound.cls, depth)
        if bound.how != "made" or not isinstance(expr, ast.Call):
            return None
        callee = dotted(expr.func)
        made = None if callee is None else self.meaning(callee, bound.scope, bound.cls, depth)
        if made is None or made.how is not How.NAMED or made.partial is not None:
            return None
        if made.name == "functools.partial":
            first = dotted(expr.args[0]) if expr.args else None
            wrapped = None if first is None else self.meaning(first, bound.scope, bound.cls, depth)
            if wrapped is None or wrapped.how is not How.NAMED or wrapped.partial is not None:
                return None
            return Meaning(How.NAMED, wrapped.name, partial=expr)
        owner, _, last = made.name.rpartition(".")
        if last.startswith("from_") and owner:
            return Meaning(How.INSTANCE, owner)
        return Meaning(How.INSTANCE, made.name) if last[:1].isupper() else None


def _bound(
    name: str | None, value: ast.expr | None, annotation: ast.expr | None, scope: int,
    cls: str | None,
) -> _Bound | None:  # fmt: skip
    """What binding `name = value` records; None when it keeps what `name` was."""
    if annotation is not None:
        return _Bound("annotated", annotation, scope, cls)
    if isinstance(value, ast.Call):
        if name is not None and _keeps(name, value):
            return None
        return _Bound("made", value, scope, cls)
    if isinstance(value, ast.Name | ast.Attribute):
        return _Bound("alias", value, scope, cls)
    return _Bound("unknown", None, scope, cls)


def _keeps(name: str, value: ast.Call) -> bool:
    """`x = x.to(device)`, `x = torch.compile(x)`: a call on `x`, or with `x` first."""
    receiver = value.func.value if isinstance(value.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and receiver.id == name:
        return True
    first = value.args[0] if value.args else None
    return isinstance(first, ast.Name) and first.id == name


def _annotated(expr: ast.expr | None) -> list[str] | None:
    """The class an annotation names: `C`, `mod.C`, `"C"`, `C | None`, `Optional[C]`."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        try:
            expr = ast.parse(expr.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        sides = [s for s in (expr.left, expr.right) if not _is_none(s)]
        return _annotated(sides[0]) if len(sides) == 1 else None
    if isinstance(expr, ast.Subscript) and (dotted(expr.value) or [""])[-1] == "Optional":
        return _annotated(expr.slice)
    return None if expr is None else dotted(expr)


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None
