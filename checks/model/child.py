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
``inputs`` and optionally ``loss`` (a callable on the outputs). Inputs are a tensor, a tuple or
list of positional arguments, or a mapping of keyword arguments; the config's ``inputs`` spec
replaces them, and without either the model's ``example_input_array`` (Lightning's convention)
is used. Anything else raises :class:`Problem`, which a program returns as
``{"problem": {"code": ..., ...}}`` for the parent to put in words (``checks.model.problems``).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, Callable

from ..sandbox.child import ImportFailed, Missing, Target, seed_libraries

TARGET_KEY = "_target_"
ARGS_KEY = "_args_"
RETURN_KEYS = ("model", "inputs", "loss")
# cuBLAS is deterministic only with a fixed workspace; read when the first handle is created.
# https://docs.nvidia.com/cuda/cublas/index.html#results-reproducibility
CUBLAS_WORKSPACE = ":4096:8"


class Problem(Exception):
    """The factory ran but gave something a model check cannot use; worded by the parent."""

    def __init__(self, code: str, **details: Any) -> None:
        super().__init__(code)
        self.code = code
        self.details = details

    def as_json(self) -> dict[str, Any]:
        return {"problem": dict(self.details, code=self.code)}


class Loaded:
    """The model (unwrapped, on the device, train mode), how to call it, and the user's loss."""

    def __init__(
        self,
        model: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        loss: Callable[[Any], Any] | None,
        inputs_from: str,
    ) -> None:
        self.model = model
        self.args = args
        self.kwargs = kwargs
        self.loss = loss
        self.inputs_from = inputs_from  # "factory", "config" or "example_input_array"


def prepare(request: dict[str, Any]) -> Any:
    """Seed everything, make torch deterministic, and return the run's ``torch.device``."""
    device = str(request["device"])
    cuda = device.split(":")[0] == "cuda"
    if cuda:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", CUBLAS_WORKSPACE)
    import torch

    if cuda and not torch.cuda.is_available():
        raise Problem(
            "no-cuda", torch=torch.__version__, cuda=torch.version.cuda, python=sys.executable
        )
    if request["seed"] is not None:
        seed_libraries(request["seed"])  # torch (every device) and numpy, if imported
    # warn_only: an op without a deterministic kernel warns instead of failing the check.
    # The public call also sets torch._inductor's flag, and importing torch._inductor costs
    # about a second per child; models run eagerly here (torch.compile is unwrapped), so set
    # only the eager flag unless inductor is loaded already.
    eager_only = getattr(torch._C, "_set_deterministic_algorithms", None)
    if eager_only is None or "torch._inductor" in sys.modules:
        torch.use_deterministic_algorithms(True, warn_only=True)
    else:
        eager_only(True, warn_only=True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    # fp32 means fp32: TF32 matmuls would make base and head differ in the last bits.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch.device(device)


def load(request: dict[str, Any], target: Target, *, device: Any, float32: bool = False) -> Loaded:
    """Build the model and its inputs as the ``model`` spec says; train mode, on ``device``.

    ``float32``: cast floating parameters, buffers and inputs to fp32 (the gradient check).
    """

    spec = request["kwargs"]["model"]
    for folder in reversed(spec.get("extra_path") or []):
        sys.path.insert(1, folder)  # after the revision's root, which stays first
    made = instantiate(spec["build"]) if spec.get("build") is not None else target.load()()
    model, inputs, loss = _unpack(made)
    model = unwrap(model)
    inputs_from = "factory"
    if spec.get("inputs") is not None:
        inputs, inputs_from = instantiate(spec["inputs"]), "config"
    elif inputs is None:
        inputs = getattr(model, "example_input_array", None)
        inputs_from = "example_input_array"
        if inputs is None:
            raise Problem("no-inputs", model=_type_name(model))
    args, kwargs = _as_call(inputs, inputs_from)
    if float32:
        model.float()
    model.to(device)
    model.train()
    return Loaded(
        model,
        _move(args, device, float32),
        _move(kwargs, device, float32),
        loss,
        inputs_from,
    )


def call_model(loaded: Loaded) -> Any:
    return loaded.model(*loaded.args, **loaded.kwargs)


def unwrap(model: Any) -> Any:
    """The module inside DataParallel / DistributedDataParallel and torch.compile wrappers."""
    import torch

    wrappers = (torch.nn.DataParallel, torch.nn.parallel.DistributedDataParallel)
    while True:
        if isinstance(model, wrappers):
            model = model.module
        elif isinstance(getattr(model, "_orig_mod", None), torch.nn.Module):
            model = model._orig_mod  # torch.compile's OptimizedModule
        else:
            return model


def instantiate(node: Any) -> Any:
    """A Hydra-style spec -> the object: each ``_target_`` called with its built arguments."""
    if isinstance(node, list):
        return [instantiate(item) for item in node]
    if not isinstance(node, dict):
        return node
    if TARGET_KEY not in node:
        return {key: instantiate(value) for key, value in node.items()}
    function = locate(node[TARGET_KEY])
    args = [instantiate(item) for item in node.get(ARGS_KEY, [])]
    kwargs = {k: instantiate(v) for k, v in node.items() if k not in (TARGET_KEY, ARGS_KEY)}
    return function(*args, **kwargs)


def locate(dotted: str) -> Any:
    """``package.module.Name`` or ``package.module.Class.method`` -> the object.

    The longest importable module prefix wins; what is left is looked up as attributes.
    """
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            # This prefix is not a module: try a shorter one. Anything else that is missing
            # (a dependency the module imports) is the module failing to import.
            if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
                continue
            raise ImportFailed(exc) from exc
        except Exception as exc:
            raise ImportFailed(exc) from exc
        for attr in parts[cut:]:
            try:
                obj = getattr(obj, attr)
            except AttributeError:
                raise Missing("attribute", attr) from None
        return obj
    raise Missing("module", parts[0])


def cuda_available(request: dict[str, Any], target: Target) -> bool:
    """A program: can torch under this interpreter use CUDA here? (``device: auto``)"""
    import torch

    return bool(torch.cuda.is_available())


def _unpack(made: Any) -> tuple[Any, Any, Any]:
    import torch

    if isinstance(made, torch.nn.Module):
        return made, None, None
    if isinstance(made, (tuple, list)):
        if len(made) != 2:
            raise Problem("bad-return", got=f"a {type(made).__name__} of {len(made)} items")
        model, inputs, loss = made[0], made[1], None
    elif isinstance(made, dict):
        unknown = sorted(str(key) for key in made if key not in RETURN_KEYS)
        if unknown or "model" not in made:
            raise Problem("bad-mapping", unknown=unknown, keys=sorted(str(k) for k in made))
        model, inputs, loss = made["model"], made.get("inputs"), made.get("loss")
    else:
        raise Problem("bad-return", got=_type_name(made))
    if not isinstance(model, torch.nn.Module):
        raise Problem("not-a-module", got=_type_name(model))
    if loss is not None and not callable(loss):
        raise Problem("bad-loss", got=_type_name(loss))
    return model, inputs, loss


def _as_call(inputs: Any, inputs_from: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    import torch

    if isinstance(inputs, torch.Tensor):
        return (inputs,), {}
    if isinstance(inputs, (tuple, list)):
        return tuple(inputs), {}
    if isinstance(inputs, dict) and all(isinstance(key, str) for key in inputs):
        return (), dict(inputs)
    raise Problem("bad-inputs", got=_type_name(inputs), source=inputs_from)


def _move(value: Any, device: Any, float32: bool) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        if float32 and value.is_floating_point():
            return value.to(device=device, dtype=torch.float32)
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(_move(item, device, float32) for item in value)
    if isinstance(value, list):
        return [_move(item, device, float32) for item in value]
    if isinstance(value, dict):
        return {key: _move(item, device, float32) for key, item in value.items()}
    return value


def _type_name(value: Any) -> str:
    kind = type(value)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def inspect_model(request: dict[str, Any], target: Target) -> dict[str, Any]:
    """A program: build the model as a check would, call it once, and describe what ran."""
    import torch

    try:
        device = prepare(request)
        loaded = load(
            request, target, device=device, float32=bool(request["kwargs"].get("float32"))
        )
    except Problem as problem:
        return problem.as_json()
    with torch.no_grad():
        outputs = call_model(loaded)
    first = next(loaded.model.parameters(), None)
    return {
        "model": _type_name(loaded.model),
        "parameters": sum(p.numel() for p in loaded.model.parameters()),
        "training": loaded.model.training,
        "device": None if first is None else str(first.device),
        "dtype": None if first is None else str(first.dtype).replace("torch.", ""),
        "inputs_from": loaded.inputs_from,
        "args": [_shape(a) for a in loaded.args],
        "kwargs": {key: _shape(value) for key, value in loaded.kwargs.items()},
        "outputs": _shape(outputs),
        "loss": None if loaded.loss is None else float(loaded.loss(outputs)),
        "sys_path": sys.path[:3],
        "deterministic": torch.are_deterministic_algorithms_enabled(),
    }


def _shape(value: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return list(value.shape)
    if isinstance(value, (tuple, list)):
        return [_shape(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _shape(item) for key, item in value.items()}
    return _type_name(value)
