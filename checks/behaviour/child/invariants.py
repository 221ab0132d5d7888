"""Properties a model keeps whatever the PR intends: each probed on one revision's model as built.

``random_eval``  two eval-mode forwards on one input from different seeds agree (dropout left
                 on in eval breaks it; a model random by design breaks it at both revisions)
``eval_state``   an eval-mode forward changes no buffer (BatchNorm statistics, counters)
``causality``    changing the input after position t leaves every output up to t as it was
                 (probed on the first input with a sequence dimension, ``dim``, by default 1)

Each returns ``{"holds": True}``, ``{"holds": False, ...where...}``, or ``{"holds": None,
"why": ...}`` when it does not apply to this model. The parent compares base with head.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from .trace import Recorder, View, compare_lists, difference, first_difference, tensors, whole

Forward = Callable[[int], Any]  # seed -> the model's outputs, every random draw from that seed
PERTURBATION_SEED = 0x5EC


def random_eval(model: Any, forward: Forward, *, seed: int, rtol: float) -> dict[str, Any]:
    model.eval()
    with torch.no_grad():
        result = compare_lists(tensors(forward(seed)), tensors(forward(seed + 1)), rtol)
    if result["equal"]:
        return {"holds": True}
    first = _located(model, lambda: forward(seed), lambda: forward(seed + 1), rtol)
    return {"holds": False, "outputs": result, "first": first}


def _located(
    model: Any, one: Callable[[], Any], two: Callable[[], Any], rtol: float, view: View = whole
) -> Any:
    """Where two forwards that differ part: both run again with every module recorded (only
    when they differ, so a model that keeps its invariants is never recorded)."""
    with torch.no_grad():
        with Recorder(model) as first:
            one()
        with Recorder(model) as second:
            two()
    return first_difference(first.calls, second.calls, rtol, view)


def eval_state(model: Any, forward: Forward, *, seed: int) -> dict[str, Any]:
    model.eval()
    before = {name: b.detach().clone() for name, b in model.named_buffers()}
    with torch.no_grad():
        forward(seed)
    changed = []
    for name, buffer in model.named_buffers():
        old = before.get(name)
        found = None if old is None else difference(old, buffer.detach())
        if found is None or found[0] > 0:
            changed.append({"name": name, "diff": None if found is None else found[0],
                            "scale": None if found is None else found[1]})  # fmt: skip
    return {"holds": not changed, "buffers": changed}


def causality(
    model: Any,
    call: Callable[[Any, Any, int], Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    dim: int,
    seed: int,
    rtol: float,
) -> dict[str, Any]:
    """``call(args, kwargs, seed)`` runs the model on other inputs."""
    found = _sequence(args, kwargs, dim)
    if found is None:
        return {"holds": None, "why": "no-sequence-input", "dim": dim}
    where, tensor = found
    length = tensor.size(dim)
    keep = (length - 1) // 2 + 1  # positions [0, keep) stay, the rest change
    changed = _perturbed(tensor, dim, keep)
    if changed is None:
        return {"holds": None, "why": "no-sequence-input", "dim": dim}
    other_args, other_kwargs = _replaced(args, kwargs, where, changed)

    def view(value: Any) -> Any:
        if value.dim() > dim and value.size(dim) == length:
            return value.narrow(dim, 0, keep)
        return None

    model.eval()
    with torch.no_grad():
        one = tensors(call(args, kwargs, seed))
        two = tensors(call(other_args, other_kwargs, seed))
    if all(view(t) is None for t in one):
        return {"holds": None, "why": "no-sequence-output", "dim": dim}
    result = compare_lists(one, two, rtol, view)
    if result["equal"]:
        return {"holds": True, "dim": dim, "kept": keep, "length": length}
    first_found = _located(
        model,
        lambda: call(args, kwargs, seed),
        lambda: call(other_args, other_kwargs, seed),
        rtol,
        view,
    )
    return {"holds": False, "dim": dim, "kept": keep, "length": length, "outputs": result,
            "first": first_found}  # fmt: skip


def _sequence(args: tuple[Any, ...], kwargs: dict[str, Any], dim: int) -> Any:
    """(where, tensor): the first input tensor with at least two positions along ``dim``."""
    for where, value in [*((("arg", i), a) for i, a in enumerate(args)),
                         *((("kwarg", k), v) for k, v in kwargs.items())]:  # fmt: skip
        if isinstance(value, torch.Tensor) and value.dim() > dim and value.size(dim) >= 2:
            return where, value
    return None


def _perturbed(tensor: Any, dim: int, keep: int) -> Any:
    """A copy whose positions from ``keep`` on along ``dim`` differ (None: cannot make one)."""
    changed = tensor.detach().clone()
    tail = changed.narrow(dim, keep, tensor.size(dim) - keep)
    if tensor.dtype == torch.bool:
        tail.logical_not_()
    elif tensor.is_floating_point():
        generator = torch.Generator(device=tensor.device).manual_seed(PERTURBATION_SEED)
        noise = torch.randn(tail.shape, generator=generator, device=tensor.device)
        scale = float(tensor.float().std()) if tensor.numel() > 1 else 1.0
        tail.add_((noise * (scale or 1.0)).to(tensor.dtype))
    else:
        top = int(tensor.max())  # token ids: stay within the ids the input already uses
        if top < 1:
            return None
        tail.copy_((tail + 1) % (top + 1))
    return changed


def _replaced(args: tuple[Any, ...], kwargs: dict[str, Any], where: Any, value: Any) -> Any:
    kind, key = where
    if kind == "arg":
        return tuple(value if i == key else a for i, a in enumerate(args)), dict(kwargs)
    return tuple(args), {k: value if k == key else v for k, v in kwargs.items()}
