"""Small readings of syntax trees that `dl-lint`'s scan shares (pure)."""

from __future__ import annotations

import ast
import io
import tokenize

from gradgate.checks.api_contract.names import dotted

_TIMEDELTA_UNITS = {
    "weeks": 604800.0,
    "days": 86400.0,
    "hours": 3600.0,
    "minutes": 60.0,
    "seconds": 1.0,
    "milliseconds": 0.001,
    "microseconds": 0.000001,
}


def comment_lines(source: str) -> set[int]:
    """The lines that hold a comment saying something (gradgate's own directives say nothing)."""
    out: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and not token.string.lstrip("# ").startswith(
                "gradgate:"
            ):
                out.add(token.start[0])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return out


def last(qualname: str | None, node: ast.Call) -> str:
    if qualname:
        return qualname.rpartition(".")[2]
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else ""


def kw(node: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg == name), None)


def kw_true(node: ast.Call, name: str) -> bool:
    value = kw(node, name)
    return isinstance(value, ast.Constant) and value.value is True


def loader_unseeded(node: ast.Call) -> bool:
    workers = kw(node, "num_workers")
    if workers is None or (isinstance(workers, ast.Constant) and workers.value == 0):
        return False
    return kw(node, "worker_init_fn") is None and kw(node, "generator") is None


def is_dataclass(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    parts = dotted(target)
    return parts is not None and parts[-1] == "dataclass"


def takes_device(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return any(a.arg == "device" for a in every)


def is_cuda(expr: ast.expr) -> bool:
    return (
        isinstance(expr, ast.Constant)
        and isinstance(expr.value, str)
        and (expr.value == "cuda" or expr.value.startswith("cuda:"))
    )


def timedelta_seconds(expr: ast.expr) -> float | None:
    """The seconds of `timedelta(minutes=30)` / `datetime.timedelta(0, 60)` with constants."""
    if not isinstance(expr, ast.Call):
        return None
    parts = dotted(expr.func)
    if parts is None or parts[-1] != "timedelta":
        return None
    total = 0.0
    positional = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")
    pairs = [*zip(positional, expr.args, strict=False), *((k.arg, k.value) for k in expr.keywords)]
    for unit, value in pairs:
        if unit not in _TIMEDELTA_UNITS or not isinstance(value, ast.Constant):
            return None
        if not isinstance(value.value, int | float) or isinstance(value.value, bool):
            return None
        total += float(value.value) * _TIMEDELTA_UNITS[unit]
    return total


def span(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"
