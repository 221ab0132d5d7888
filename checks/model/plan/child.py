"""Inside the sandbox child: the facts of the model plan, for each variant the factory returns.

Child-side (the user's interpreter: stdlib and torch, Python 3.9+). The program
``model.plan.child:facts`` is asked of a revision's long-lived child once the gate's model
checks are done with it (``checks.model.plan.ask``), so it costs no child start. For each
variant it answers with small facts, compared by the parent:

    {"variants": [{"variant": name or None,
                   "entries": {key: [shape, dtype]},      the state dict, as the checkpoint
                                                          check describes it
                   "modules": [[path, class], ...],       named_modules() in order
                   "parameters": {top-level name: count}, each parameter once (tied: once)
                   "flops": N or None, "flops_error": why not}]}

The structure is read from the model built on the meta device, as the checkpoint check builds
it (no memory, no values). FLOPs are torch's own count (``torch.utils.flop_counter``) of one
forward pass on the factory's inputs under ``torch.no_grad()``: on the model built for real on
the run's device when the variants together have at most ``REAL_FLOPS_MAX`` parameters, else
on the meta model (the count depends on shapes only, so both give the same number; a forward
pass on meta imports torch's symbolic shapes, with sympy, about a second, which a small model
should not pay).
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from ...checkpoint.child.describe import describe
from ...checkpoint.child.meta import NoValuesOnMeta
from ...model.child import Problem, finish, prepare, variants
from ...sandbox.child import Target

# The most parameters (all variants together) built for real to count FLOPs: a few hundred MB
# in fp32, built in well under a second.
REAL_FLOPS_MAX = 50_000_000
_MAX_ERROR = 500


def facts(request: dict[str, Any], target: Target) -> Any:
    try:
        device = prepare(request)
        real = None
        try:
            with torch.device("meta"), NoValuesOnMeta():
                built = _built(request, target, torch.device("meta"))
        except Problem:
            raise
        except Exception:  # a factory that reads weights or values: built for real
            built = real = _built(request, target, device)
        found = [_structure(name, loaded.model) for name, loaded in built]
        if real is None and sum(sum(v["parameters"].values()) for v in found) <= REAL_FLOPS_MAX:
            with contextlib.suppress(Exception):  # then counted on meta
                real = _built(request, target, device)
        for item, (_, loaded) in zip(found, real or built):
            item["flops"], item["flops_error"] = _flops(loaded, meta=real is None)
        return {"variants": found}
    except Problem as problem:
        return problem.as_json()


def _built(request: dict[str, Any], target: Target, device: Any) -> list[tuple[Any, Any]]:
    """Each variant's name and Loaded model, on ``device``."""
    return [
        (name, finish(request, made, device=device, variant=name))
        for name, made in variants(request, target)
    ]


def _structure(name: str | None, model: Any) -> dict[str, Any]:
    parameters: dict[str, int] = {}
    for key, parameter in model.named_parameters():  # each parameter once, tied or not
        top = key.split(".", 1)[0]
        parameters[top] = parameters.get(top, 0) + parameter.numel()
    modules = [[path, _class_name(module)] for path, module in model.named_modules()]
    return {
        "variant": name,
        "entries": describe(model)["entries"],
        "modules": modules,
        "parameters": parameters,
    }


def _class_name(module: Any) -> str:
    kind = type(module)
    return kind.__qualname__ if kind.__module__.startswith("torch.") else kind.__name__


def _flops(loaded: Any, *, meta: bool = False) -> tuple[int | None, str | None]:
    """One forward pass counted; (None, why) when the model cannot run on its own inputs.
    ``meta``: the model is on the meta device, and so is what its forward pass creates."""
    from torch.utils.flop_counter import FlopCounterMode

    _no_dynamo_import()
    counter = FlopCounterMode(display=False)
    try:
        with contextlib.ExitStack() as stack:
            if meta:
                stack.enter_context(torch.device("meta"))
                stack.enter_context(NoValuesOnMeta())
            stack.enter_context(counter)
            stack.enter_context(torch.no_grad())
            loaded.model(*loaded.args, **loaded.kwargs)
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"[:_MAX_ERROR]
    return int(counter.get_total_flops()), None


def _no_dynamo_import() -> None:
    """Spare the child ``import torch._dynamo`` (about a second, 800 modules). Every
    ``TorchDispatchMode`` subclass's ``__torch_dispatch__`` is wrapped by
    ``torch._disable_dynamo``, which on its first call imports torch._dynamo to make the
    never-compiled version of the function, and keeps it on the function as
    ``__dynamo_disable``. Nothing in the child is compiled (``torch.compile`` is unwrapped), so
    the function itself is that version. Where torch wraps it otherwise, nothing is changed."""
    from torch.utils.flop_counter import _FlopCounterMode

    with contextlib.suppress(Exception):
        wrapped = _FlopCounterMode.__dict__["__torch_dispatch__"].__wrapped__
        if getattr(wrapped, "__dynamo_disable", None) is None:
            setattr(wrapped, "__dynamo_disable", wrapped)
