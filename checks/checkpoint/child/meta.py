"""Inside the sandbox child: the model's variants built on the meta device, without random values.

On the meta device a tensor has a shape and a dtype but no values, yet torch still runs a
random op's meta kernel, and for ``randn``, ``randint`` and ``normal_`` that kernel is Python
(``torch._refs``): its first ``torch._check`` imports torch's symbolic shapes, with sympy,
and ``normal_`` (every ``nn.Embedding``'s init) imports ``torch._dynamo`` too. That costs a
child a second or more, for the example batch a factory returns (``torch.randn(4, 32)``) or an
embedding's init. :class:`NoValuesOnMeta` answers those ops on meta the way they would end:
a new meta tensor of the same shape and dtype (``torch.empty``, whose meta kernel is C++), or
the filled tensor itself. Anything else, and any op on another device, runs as it would.
Other ops with Python meta kernels (``arange``, elementwise maths on meta buffers) still
import sympy; ``programs.warm`` covers those.
"""

from __future__ import annotations

import json
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from ...model.child import Problem, finish, variants
from ...sandbox.child import Target

_MAX_ERROR = 2000
# In-place random fills: on a meta tensor each returns the tensor, as torch's would.
_FILLS = frozenset(
    getattr(torch.Tensor, name)
    for name in ("normal_", "random_", "bernoulli_", "exponential_", "cauchy_", "log_normal_")
    if hasattr(torch.Tensor, name)
)
# Random factories with torch.empty's signature, less `generator`.
_FACTORIES = frozenset((torch.randn, torch.rand))


def _on_meta(kwargs: dict[str, Any]) -> bool:
    """Would a factory called with ``kwargs`` make a meta tensor (the default device is meta
    while the model is built)? A write into ``out`` is left to torch."""
    device = kwargs.get("device")
    return "out" not in kwargs and (device is None or torch.device(device).type == "meta")


def _filled(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The meta tensor a fill would fill, or None when torch itself should run ``func``."""
    tensor = args[0] if args else kwargs.get("tensor", kwargs.get("self"))
    if not isinstance(tensor, torch.Tensor) or not tensor.is_meta:
        return None
    if func in _FILLS or func is torch.nn.init.normal_:
        std = args[2] if len(args) > 2 else kwargs.get("std", 1.0)
        # normal_ refuses a negative std: leave the error to torch.
        if not (func in (torch.Tensor.normal_, torch.nn.init.normal_) and std < 0):
            return tensor
    return None


class NoValuesOnMeta(TorchFunctionMode):
    """Random values that would never exist on meta are not computed (see the module's doc)."""

    def __torch_function__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        filled = _filled(func, args, kwargs)
        if filled is not None:
            return filled
        if func in _FACTORIES and _on_meta(kwargs):
            rest = {k: v for k, v in kwargs.items() if k != "generator"}
            rest["device"] = "meta"
            return torch.empty(*args, **rest)
        if func is torch.randint and _on_meta(kwargs) and len(args) + ("size" in kwargs) >= 2:
            rest = {k: v for k, v in kwargs.items() if k not in ("generator", "size")}
            rest.setdefault("dtype", torch.int64)
            rest["device"] = "meta"
            return torch.empty(kwargs["size"] if "size" in kwargs else args[-1], **rest)
        return func(*args, **kwargs)


# The models `warm` built on meta for the next request, with the request they were built for.
_AHEAD: dict[str, Any] = {}

Built = list[tuple[Any, Any]]  # [(variant name or None: the factory's one model, model), ...]


def build_meta(request: dict[str, Any], target: Target, device: Any) -> tuple[Built, str | None]:
    """(every variant's model, None), built on meta; (each built on ``device``, why not meta)
    otherwise. The factory runs once either way. Models :func:`build_ahead` made for the same
    request are used once instead of a new build."""
    ahead = _AHEAD.pop("models", None)
    if ahead is not None and ahead[0] == _key(request):
        return ahead[1], None
    try:
        return _meta_models(request, target), None
    except Problem:
        raise
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"[:_MAX_ERROR]
    return built(request, target, device=device), reason


def build_ahead(request: dict[str, Any], target: Target) -> None:
    """Build the models on meta now, for the next request of the same revision to use: whatever
    the build imports (torch's symbolic shapes, with sympy, where the factory runs ops whose
    meta kernels are Python) is then imported while the other revision's child works. A
    factory that fails on meta raises here; the next request builds it again and says why."""
    _AHEAD.clear()
    _AHEAD["models"] = (_key(request), _meta_models(request, target))


def built(request: dict[str, Any], target: Target, *, device: Any) -> Built:
    """The factory called once; each of its variants (or its one model) finished on ``device``."""
    return [
        (name, finish(request, made, device=device, variant=name).model)
        for name, made in variants(request, target)
    ]


def _meta_models(request: dict[str, Any], target: Target) -> Built:
    with torch.device("meta"), NoValuesOnMeta():
        return built(request, target, device=torch.device("meta"))


def _key(request: dict[str, Any]) -> str:
    """What a meta build depends on: the target, the model spec, the revision's root."""
    fields = ("module", "path", "attr", "root")
    return json.dumps([[request.get(f) for f in fields], request["kwargs"].get("model")])
