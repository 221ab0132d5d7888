"""Signatures of a module's functions and methods, and how one changed from base to head.

Module-level functions and the methods of module-level classes (nested classes too) count;
functions nested in functions cannot be called from elsewhere. A property is no call.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    FUNCTION = "function"
    METHOD = "method"  # the first parameter is the instance
    CLASSMETHOD = "classmethod"
    STATICMETHOD = "staticmethod"


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    default: str | None  # the default as code; None: required
    default_dump: str | None  # the default's syntax tree, to compare without formatting
    # A `None` default the body replaces first thing (`x = 3 if x is None else x`): the syntax
    # tree of what it becomes, so `x=None` -> `x=3` is no change of what callers get.
    resolved_dump: str | None = None
    resolved: str | None = None  # that value as code, when the default is a `None` sentinel

    @property
    def effective(self) -> str | None:
        return self.resolved_dump or self.default_dump

    @property
    def gets(self) -> str | None:
        """What a call that leaves the parameter out gets, as code: the value a `None`
        sentinel becomes in the body (diffusers 0.40: `use_system_prompt=None`, then
        `self.config.default_use_system_prompt`), else the default as written."""
        return self.resolved or self.default


@dataclass(frozen=True, slots=True)
class Signature:
    qualname: str  # "f", "Class.method"
    kind: Kind
    line: int
    positional: tuple[Param, ...]  # positional-only, then positional-or-keyword
    positional_only: int  # how many of ``positional`` are positional-only
    keyword_only: tuple[Param, ...]
    varargs: bool
    varkw: bool

    def implicit(self, *, via_instance: bool) -> int:
        """Positional parameters the call fills itself (`self`, `cls`), by how it is called."""
        if self.kind is Kind.CLASSMETHOD:
            return 1
        return 1 if self.kind is Kind.METHOD and via_instance else 0

    def names(self) -> list[str]:
        return [p.name for p in (*self.positional, *self.keyword_only)]


def signatures(tree: ast.Module) -> dict[str, Signature]:
    """Qualified name within the module -> its signature (the last definition wins)."""
    constants = _constants(tree.body)
    return {sig.qualname: sig for sig in _defs(tree.body, prefix="", in_class=False,
                                                constants=constants)}  # fmt: skip


def _constants(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """Module-level names bound once to a literal (`DEFAULT_RANK = 64`): a default that names
    one is that value (issue 36: `lora_rank=64` -> `lora_rank=DEFAULT_RANK` changed nothing)."""
    bound: dict[str, list[ast.expr]] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign | ast.AugAssign) and isinstance(stmt.target, ast.Name):
            bound.setdefault(stmt.target.id, []).append(stmt.value or ast.Constant(None))
            if isinstance(stmt, ast.AugAssign):
                bound[stmt.target.id].append(stmt.target)  # rebound: never a constant
    return {
        name: values[0]
        for name, values in bound.items()
        if len(values) == 1 and _literal(values[0])
    }


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _defs(
    body: list[ast.stmt], *, prefix: str, in_class: bool, constants: dict[str, ast.expr]
) -> Iterator[Signature]:
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            yield from _defs(
                stmt.body, prefix=f"{prefix}{stmt.name}.", in_class=True, constants=constants
            )
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            kind = _kind(stmt, in_class=in_class)
            if kind is not None:
                yield _signature(stmt, f"{prefix}{stmt.name}", kind, constants)


def _kind(node: ast.FunctionDef | ast.AsyncFunctionDef, *, in_class: bool) -> Kind | None:
    names = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)
            if target.attr in ("setter", "deleter"):
                return None
    if names & {"property", "cached_property", "overload"}:
        return None  # not called with arguments; an overload is not the implementation
    if not in_class:
        return Kind.FUNCTION
    if "staticmethod" in names:
        return Kind.STATICMETHOD
    return Kind.CLASSMETHOD if "classmethod" in names else Kind.METHOD


def _signature(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    qualname: str,
    kind: Kind,
    constants: dict[str, ast.expr] | None = None,
) -> Signature:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += args.defaults
    resolved = _sentinels(node.body)
    constants = constants or {}
    return Signature(
        qualname=qualname,
        kind=kind,
        line=node.lineno,
        positional=tuple(
            _param(a, d, resolved, constants) for a, d in zip(positional, defaults, strict=True)
        ),
        positional_only=len(args.posonlyargs),
        keyword_only=tuple(
            _param(a, d, resolved, constants)
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
        ),
        varargs=args.vararg is not None,
        varkw=args.kwarg is not None,
    )


def _param(
    arg: ast.arg,
    default: ast.expr | None,
    resolved: dict[str, ast.expr],
    constants: dict[str, ast.expr],
) -> Param:
    """``resolved``: the body's `None`-sentinel values; ``constants``: the module's literal
    names, for a default that names one."""
    if default is None:
        return Param(arg.arg, None, None)
    sentinel = None
    if _is_none(default):
        value = sentinel = resolved.get(arg.arg)
    elif isinstance(default, ast.Name):
        value = constants.get(default.id)
    else:
        value = None
    return Param(arg.arg, ast.unparse(default), ast.dump(default),
                 None if value is None else ast.dump(value),
                 None if sentinel is None else ast.unparse(sentinel))  # fmt: skip


def _sentinels(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """Parameter -> the value the body gives it when it is None, from the `None`-sentinel
    idioms among the body's top-level statements (issue 36): `x = V if x is None else x`,
    `x = x if x is not None else V`, `x = x or V`, `if x is None: x = V`."""
    out: dict[str, ast.expr] = {}
    for stmt in body:
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1:
            name = _none_test(stmt.test, ast.Is)
            inner = stmt.body[0]
            if name is not None and _assigns(inner) == name:
                assert isinstance(inner, ast.Assign)
                out.setdefault(name, inner.value)
            continue
        name = _assigns(stmt)
        if name is None:
            continue
        assert isinstance(stmt, ast.Assign)
        value = stmt.value
        if isinstance(value, ast.IfExp):
            if _none_test(value.test, ast.Is) == name and _is_name(value.orelse, name):
                out.setdefault(name, value.body)
            elif _none_test(value.test, ast.IsNot) == name and _is_name(value.body, name):
                out.setdefault(name, value.orelse)
        elif (
            isinstance(value, ast.BoolOp)
            and isinstance(value.op, ast.Or)
            and len(value.values) == 2
            and _is_name(value.values[0], name)
        ):
            out.setdefault(name, value.values[1])
    return out


def _assigns(stmt: ast.stmt) -> str | None:
    """`x = ...`: the name; else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    return None


def _none_test(test: ast.expr, op: type[ast.cmpop]) -> str | None:
    """`x is None` (or `x is not None`, by ``op``): `x`; else None."""
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], op)
        and _is_none(test.comparators[0])
    ):
        return test.left.id
    return None


def _is_name(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


# A `def` header up to the colon that ends its line (defaults may nest parentheses twice), a
# decorator, a class line.
_HEADER = re.compile(
    rb"^[ \t]*(?:@[^\n]*|class[ \t][^\n]*"
    rb"|(?:async[ \t]+)?def[ \t]+\w+[ \t]*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)"
    rb"[^:\n]*:[ \t]*(?:\#[^\n]*)?$)",
    re.MULTILINE,
)
_DEF = re.compile(rb"^[ \t]*(?:async[ \t]+)?def\b", re.MULTILINE)
_SPACE = re.compile(rb"\s+")


def headers(source: bytes) -> list[bytes] | None:
    """Every decorator, class line and `def` header of the file, whitespace removed: equal at
    base and head, the signatures are equal and the file need not be parsed for them. None
    when a `def` escapes the pattern (a parenthesis inside a string default, say)."""
    found = _headers(source)
    return None if found is None else [_SPACE.sub(b"", m.group()) for m in found]


def _headers(source: bytes) -> list[re.Match[bytes]] | None:
    found = list(_HEADER.finditer(source))
    defs = sum(1 for m in found if m.group().lstrip()[:1] not in (b"@", b"c"))
    return found if defs == len(_DEF.findall(source)) else None
