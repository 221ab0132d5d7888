"""Building the user's model, inputs and loss from the factory or the spec (see the package)."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

from ...sandbox.child import Target, seed_libraries
from .specs import instantiate

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
    A factory that returns named variants gives its first one here (see :func:`variants`).
    """
    name, made = variants(request, target)[0]
    return finish(request, made, device=device, float32=float32, variant=name)


def variants(request: dict[str, Any], target: Target) -> list[tuple[str | None, Any]]:
    """Call the factory (or build the spec) once: ``[(None, made)]``, or, when it returns a
    mapping of named variants (``{"default": model, "flash": (model, inputs)}``: no `model`
    key, every key a name), each ``(name, made)`` in the mapping's order."""
    spec = request["kwargs"]["model"]
    for folder in reversed(spec.get("extra_path") or []):
        sys.path.insert(1, folder)  # after the revision's root, which stays first
    made = instantiate(spec["build"]) if spec.get("build") is not None else target.load()()
    named = isinstance(made, dict) and bool(made) and all(isinstance(k, str) for k in made)
    if named and not set(made) & set(RETURN_KEYS):
        return list(made.items())
    return [(None, made)]


def finish(
    request: dict[str, Any],
    made: Any,
    *,
    device: Any,
    float32: bool = False,
    variant: str | None = None,
) -> Loaded:
    """One factory result (or variant) -> the Loaded model, on ``device``, in train mode."""
    try:
        return _finish(request["kwargs"]["model"], made, device, float32)
    except Problem as problem:
        if variant is not None:
            problem.details["variant"] = variant  # the parent's words name it
        raise


def _finish(spec: dict[str, Any], made: Any, device: Any, float32: bool) -> Loaded:
    model, inputs, loss = _unpack(made)
    model = unwrap(model)
    inputs_from = "factory"
    if spec.get("inputs") is not None:
        inputs, inputs_from = instantiate(spec["inputs"]), "config"
    elif inputs is None:
        inputs = getattr(model, "example_input_array", None)
        inputs_from = "example_input_array"
        if inputs is None:
            raise Problem("no-inputs", model=type_name(model))
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
        raise Problem("bad-return", got=type_name(made))
    if not isinstance(model, torch.nn.Module):
        raise Problem("not-a-module", got=type_name(model))
    if loss is not None and not callable(loss):
        raise Problem("bad-loss", got=type_name(loss))
    return model, inputs, loss


def _as_call(inputs: Any, inputs_from: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    import torch

    if isinstance(inputs, torch.Tensor):
        return (inputs,), {}
    if isinstance(inputs, (tuple, list)):
        return tuple(inputs), {}
    if isinstance(inputs, dict) and all(isinstance(key, str) for key in inputs):
        return (), dict(inputs)
    raise Problem("bad-inputs", got=type_name(inputs), source=inputs_from)


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


def type_name(value: Any) -> str:
    kind = type(value)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"
