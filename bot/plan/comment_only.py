"""Pure: does a Python change leave the program the same (comments, docstrings, layout only)?"""

from __future__ import annotations

import ast

from gradgate.checks.gradient.edits import parse_python

__all__ = ["MAX_FILES", "parse_python", "program", "same_program"]

# Above this many candidate files a PR is not "only comments": don't spend time proving it.
MAX_FILES = 200


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
    return tree


def program(tree: ast.Module) -> str:
    """What the tree runs, docstrings aside (removes them from ``tree`` itself).

    ast.dump recurses: a tree nested past the recursion limit (`1+1+...` 2,000 deep parses,
    and does not dump) is not provably the same as anything, and never an internal error of
    the plan: it gets a text no other tree has."""
    try:
        return ast.dump(_without_docstrings(tree), include_attributes=False)
    except (RecursionError, MemoryError):
        return f"<too deep to compare: {id(tree)}>"


def _program(source: bytes) -> str | None:
    tree = parse_python(source)
    return None if tree is None else program(tree)


def same_program(path: str, old: bytes | None, new: bytes | None) -> bool:
    """True only for a Python file present on both sides whose syntax tree, docstrings aside,
    is unchanged: the edit touched comments, docstrings or formatting and nothing that runs.
    Anything else (not Python, added, deleted, unparsable) is conservatively a real change."""
    if not path.endswith((".py", ".pyi")) or old is None or new is None:
        return False
    before = _program(old)
    return before is not None and before == _program(new)
