"""The data child's problems in words, naming the factory and revision (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SHAPES = (
    "the `data` entrypoint returns the transform (a callable), a `Dataset` (or a tuple "
    "`(dataset, indices)`), or a mapping with `transform` and optionally `inputs` (a non-empty "
    "list of inputs), or with `dataset` and optionally `indices` (a non-empty list of item "
    "indices, whole numbers 0 or more)"
)


def describe(problem: Mapping[str, Any], where: str) -> str:
    code = problem.get("code")
    if code == "not-callable":
        return (
            f"{where} returned {problem.get('got')}, not a callable transform or a dataset; "
            f"{_SHAPES}."
        )
    if code == "bad-inputs":
        return f"{where} returned `inputs` as {problem.get('got')}; {_SHAPES}."
    if code == "bad-indices":
        return f"{where} gave `indices` as {problem.get('got')}; {_SHAPES}."
    if code == "both":
        return f"{where} returned both a `transform` and a `dataset`; {_SHAPES}."
    if code == "no-items":
        return (
            f"{where} returned a dataset with no item at the indices read ({problem.get('got')})."
        )
    if code == "no-form":
        return (
            f"{where}: no form of the synthetic image could be made (NumPy, PIL and torch are "
            "all missing from the interpreter that runs your code); return `inputs` yourself."
        )
    return f"{where}: the transform could not be used ({code})."
