"""Do base weights still mean the same in the head model? Real weights, a fixed input, outputs.

At base: each variant the factory returns, built with seeded real weights, runs on its example
inputs in eval mode; its state dict, the inputs and the outputs make one record (``record``),
and the records of every variant go to one file. At head: each variant (built with another
seed, so a tensor that fails to load shows) loads its namesake's state dict after the declared
migrations, with ``load_state_dict`` as a user would (``copy_``, so ties hold and a tensor
loaded twice into one tied parameter silently keeps the last, C13), runs on the same inputs,
and its outputs are compared (``compare``). Metadata cannot see a transposed square weight
(C12) or weights newly tied; this can.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from .keys import migrate

_MAX_ERROR = 1000


def tensors(value: Any) -> list[Any]:
    """Every tensor in an output, in a fixed order (tuples, lists, dicts, ModelOutput)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, Mapping):
        return [t for k in value for t in tensors(value[k])]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in tensors(item)]
    return []


def to_cpu(value: Any) -> Any:
    """Plain containers of CPU tensors, which ``torch.load(weights_only=True)`` accepts."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, Mapping):
        return {k: to_cpu(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        items = [to_cpu(v) for v in value]
        return tuple(items) if isinstance(value, tuple) else items  # named tuples: plain
    return value


def to_device(value: Any, device: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, Mapping):
        return {k: to_device(v, device) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(to_device(v, device) for v in value)
    return value


def record(model: Any, args: Any, kwargs: Any, *, variant: str | None) -> dict[str, Any]:
    """Run the base model (on its device, eval mode): what the head needs to compare with it."""
    model.eval()
    with torch.no_grad():
        outputs = tensors(model(*args, **kwargs))
    return {
        "variant": variant,
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "args": to_cpu(tuple(args)),
        "kwargs": to_cpu(dict(kwargs)),
        "outputs": [t.detach().cpu() for t in outputs],
    }


def compare(
    model: Any,
    saved: Mapping[str, Any],
    *,
    migrations: list[Any],
    atol: float,
    rtol: float,
    device: Any,
) -> dict[str, Any]:
    """Load the base weights of ``saved`` (one variant's ``record``) into ``model`` (on
    ``device``) and compare outputs."""
    refused: dict[str, Any] | None = load_weights(model, saved["state_dict"], migrations=migrations)
    if refused is not None:
        return refused
    model.eval()
    args, kwargs = to_device(saved["args"], device), to_device(saved["kwargs"], device)
    try:
        with torch.no_grad():
            outputs = tensors(model(*args, **kwargs))
    except Exception as exc:  # the head model cannot run base's inputs: said, not a crash
        return {"compared": False, "raised": _short(exc)}
    expected = saved["outputs"]
    if len(outputs) != len(expected):
        return {
            "compared": True,
            "equal": False,
            "reason": "count",
            "head": len(outputs),
            "base": len(expected),
        }
    for index, (got, want) in enumerate(zip(outputs, expected)):
        got = got.detach().cpu()
        if got.shape != want.shape:
            return {
                "compared": True,
                "equal": False,
                "reason": "shape",
                "index": index,
                "head": list(got.shape),
                "base": list(want.shape),
            }
        if not torch.allclose(got.to(want.dtype), want, atol=atol, rtol=rtol, equal_nan=True):
            diff = (got.to(want.dtype) - want).abs().nan_to_num(float("inf")).max().item()
            return {
                "compared": True,
                "equal": False,
                "reason": "values",
                "index": index,
                "max_abs_diff": diff,
            }
    return {"compared": True, "equal": True, "outputs": len(outputs)}


def load_weights(
    model: Any, state: Mapping[str, Any], *, migrations: list[Any]
) -> dict[str, Any] | None:
    """Load another revision's state dict into ``model`` after ``migrations``, as a user would
    (``load_state_dict``); None when every key loaded, else why not, as ``compare`` answers it
    (``{"compared": False, ...}``). The behaviour check loads base's weights with it too."""
    renamed, _used, _dropped = migrate(list(state), migrations)
    migrated = {new: state[old] for new, old in renamed.items()}
    try:
        result = model.load_state_dict(migrated, strict=False)
    except RuntimeError as exc:  # shapes differ: the dry run reports them key by key
        return {"compared": False, "error": _short(exc)}
    if result.missing_keys or result.unexpected_keys:
        return {
            "compared": False,
            "missing": list(result.missing_keys),
            "unexpected": list(result.unexpected_keys),
        }
    return None


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:_MAX_ERROR]
