"""The child's model problems (``checks.model.child.Problem``) in words, naming the revision.

Pure: a problem's JSON in, a message out. Each message says what to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SHAPES = (
    "a model factory returns an `nn.Module`, `(model, inputs)`, or a mapping with `model`, "
    "`inputs` and optionally `loss`, or a mapping of named variants "
    "(`{'default': ..., 'flash': ...}`), each one of those"
)
_INPUTS = (
    "return `(model, inputs)` or `{'model': ..., 'inputs': ...}` from the factory, set "
    "`example_input_array` on the model, or add `inputs:` (e.g. `{_target_: torch.randn, "
    "_args_: [8, 32]}`) to the `model:` block in .gradgate.yml"
)
_INPUT_SHAPES = "a tensor, a tuple of positional arguments, or a mapping of keyword arguments"
_SOURCES = {
    "factory": "the factory's inputs",
    "config": "`model.inputs` in .gradgate.yml",
    "example_input_array": "the model's `example_input_array`",
}


def describe(problem: Mapping[str, Any], *, where: str) -> str:
    """``where``: the factory and revision, e.g. "`tinycls/model.py:build` at head"."""
    code = problem.get("code")
    if problem.get("variant") is not None:
        where = f"{where}, variant `{problem['variant']}`,"
    if code == "no-cuda":
        build = problem.get("cuda") or "none (a CPU-only build)"
        return (
            f"{where}: `device: cuda`, but torch {problem.get('torch')} under "
            f"`{problem.get('python')}` cannot use CUDA on this machine (its CUDA: {build}). "
            "Run this check on a GPU runner (`runners:` in .gradgate.yml), or set "
            "`device: auto` to use CUDA only where it works."
        )
    if code == "bad-return":
        return f"{where} returned {problem.get('got')}; {_SHAPES}."
    if code == "bad-mapping":
        unknown = ", ".join(f"`{k}`" for k in problem.get("unknown") or ())
        if unknown:
            return f"{where} returned a mapping with unknown keys {unknown}; {_SHAPES}."
        return f"{where} returned a mapping without `model`; {_SHAPES}."
    if code == "not-a-module":
        got = problem.get("got")
        return f"{where} returned {got} as the model, not an `nn.Module`; {_SHAPES}."
    if code == "bad-loss":
        got = problem.get("got")
        return f"{where} returned {got} as `loss`; it must be a callable on the outputs."
    if code == "no-inputs":
        return (
            f"{where} gave a model ({problem.get('model')}) but no inputs to run it on: {_INPUTS}."
        )
    if code == "bad-inputs":
        source = _SOURCES.get(str(problem.get("source")), "the inputs")
        return f"{where}: {source} are {problem.get('got')}; inputs are {_INPUT_SHAPES}."
    if code == "bad-loss-value":
        return (
            f"{where}: `loss(outputs)` returned {problem.get('got')}; it must return a "
            "tensor with one element."
        )
    return f"{where}: the model could not be used ({code})."
