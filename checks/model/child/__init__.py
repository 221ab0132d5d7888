"""Inside the sandbox child: the user's model, inputs and loss, on a seeded, deterministic device.

Child-side (see ``checks.sandbox.child``): runs under the user's interpreter, Python 3.9 or
newer, and imports only the standard library, torch and other child-side modules. The model
checks' programs call, in order:

    device = prepare(request)                  seeds, determinism, the device (or Problem)
    loaded = load(request, target, device=...) the factory's or spec's model, inputs and loss
    outputs = call_model(loaded)

The request's ``kwargs["model"]`` is ``ModelSpec.as_request()`` plus ``extra_path`` (a
config's folder, given with --config); the entrypoint itself is the sandbox's ``target``.

What the factory may return: the model; ``(model, inputs)``; or a mapping with ``model``,
``inputs`` and optionally ``loss`` (a callable on the outputs); or a mapping of named variants,
``{"default": ..., "flash": ...}``, each one of those (``variants`` gives them all, ``load`` the
first; ``coverage`` records which changed lines they ran). Inputs are a tensor, a tuple or
list of positional arguments, or a mapping of keyword arguments; the config's ``inputs`` spec
replaces them, and without either the model's ``example_input_array`` (Lightning's convention)
is used. Anything else raises :class:`Problem`, which a program returns as
``{"problem": {"code": ..., ...}}`` for the parent to put in words (``checks.model.problems``).
"""

from .build import (
    CUBLAS_WORKSPACE,
    RETURN_KEYS,
    Loaded,
    Problem,
    call_model,
    finish,
    load,
    prepare,
    unwrap,
    variants,
)
from .probe import cuda_available, inspect_model
from .specs import ARGS_KEY, TARGET_KEY, instantiate, locate

__all__ = [
    "ARGS_KEY",
    "CUBLAS_WORKSPACE",
    "RETURN_KEYS",
    "TARGET_KEY",
    "Loaded",
    "Problem",
    "call_model",
    "cuda_available",
    "finish",
    "inspect_model",
    "instantiate",
    "load",
    "locate",
    "prepare",
    "unwrap",
    "variants",
]
