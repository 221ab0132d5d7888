"""Pure: each changed Python file, read once, answers two questions for the plan.

Does the change leave the program the same (`comment_only`: the model checks can skip it)? Does
it add or remove gradient-sensitive code (`gradient_edits`: the gradient check runs, zone or
not)? The trees parsed for the first answer serve the second.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gradgate.bot.plan.comment_only import parse_python, program
from gradgate.checks.gradient.edits import GradientEdit, gradient_edits, needs_parse

PYTHON = (".py", ".pyi")


@dataclass(frozen=True, slots=True)
class PythonEdits:
    non_semantic: frozenset[str] = frozenset()  # paths whose program is unchanged
    gradient: tuple[GradientEdit, ...] = ()  # gradient-sensitive lines added or removed
    # Changed paths nobody read (a large change): whether they hold such edits is unknown.
    unscanned: Sequence[str] = ()


def classify(files: Iterable[tuple[str, bytes | None, bytes | None]]) -> PythonEdits:
    """``files``: (path, bytes at base, bytes at head) of changed Python files; None where the
    file is absent. A renamed file comes as its two paths, each absent on one side."""
    same: set[str] = set()
    sensitive: list[tuple[str, ast.Module | bytes | None, ast.Module | bytes | None]] = []
    for path, old, new in files:
        trees: tuple[ast.Module | None, ast.Module | None] = (None, None)
        if old is not None and new is not None:
            trees = (parse_python(old), parse_python(new))
            if trees[0] and trees[1] and program(trees[0]) == program(trees[1]):
                same.add(path)
                continue
        if path.endswith(".py") and needs_parse(old, new):
            sensitive.append((path, trees[0] or old, trees[1] or new))
    return PythonEdits(frozenset(same), gradient_edits(sensitive))
