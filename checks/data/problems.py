"""The data child's problems in words, naming the factory and revision (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SHAPES = (
    "the `data` entrypoint returns the transform (a callable) or a mapping with `transform` "
    "and optionally `inputs` (a non-empty list of inputs)"
)


def describe(problem: Mapping[str, Any], where: str) -> str:
    code = problem.get("code")
    if code == "not-callable":
        return f"{where} returned {problem.get('got')}, not a callable transform; {_SHAPES}."
    if code == "bad-inputs":
        return f"{where} returned `inputs` as {problem.get('got')}; {_SHAPES}."
    if code == "no-form":
        return (
            f"{where}: no form of the synthetic image could be made (NumPy, PIL and torch are "
            "all missing from the interpreter that runs your code); return `inputs` yourself."
        )
    return f"{where}: the transform could not be used ({code})."
