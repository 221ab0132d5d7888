"""What an evaluation function does at one revision (rule `eval-mode-lost`; pure)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from gradgate.checks.api_contract.names import dotted

_EVAL_PREFIXES = ("eval", "validat", "test")


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What an evaluation function does at one revision (rule `eval-mode-lost`)."""

    line: int
    end: int
    calls_eval: bool
    no_grad: bool


def evaluations(tree: ast.Module) -> dict[str, Evaluation]:
    """Functions named for evaluation (`evaluate`, `validate`, `test_step`...), by qualname."""
    out: dict[str, Evaluation] = {}
    for qualname, node in _functions(tree):
        if not node.name.lower().lstrip("_").startswith(_EVAL_PREFIXES):
            continue
        calls_eval = any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "eval"
            and not n.args
            for n in ast.walk(node)
        )
        no_grad = any(_is_no_grad(d) for d in node.decorator_list) or any(
            isinstance(n, ast.With | ast.AsyncWith)
            and any(_is_no_grad(i.context_expr) for i in n.items)
            for n in ast.walk(node)
        )
        end = node.end_lineno or node.lineno
        out[qualname] = Evaluation(node.lineno, end, calls_eval, no_grad)
    return out


def _is_no_grad(expr: ast.expr) -> bool:
    target = expr.func if isinstance(expr, ast.Call) else expr
    parts = dotted(target)
    return parts is not None and parts[-1] in ("no_grad", "inference_mode")


def _functions(
    tree: ast.AST, prefix: str = ""
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
