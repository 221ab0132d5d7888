"""What every module took and gave in one forward, and where two such records first part.

Forward hooks on every module record, in the order the calls end (a child ends before its
parent), each call's tensor inputs and outputs, keyed by the module's name and how many times
it had been called before (a module called twice is ``name#0``, ``name#1``). Two records of the
same model, or of base's and head's models, are matched by those keys; the first call, in the
second record's order, whose inputs agree and whose outputs do not is the module whose own code
computes something else (``first_difference``).

Tensors agree when they have the same shape and dtype and differ by no more than ``rtol`` times
the reference tensor's largest magnitude (exactly, for integer and boolean tensors): each
tensor's own scale, not one absolute number, so a model with small outputs is held to the same
standard as one with large outputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional

import torch

# Records larger than this many elements stop recording (what was recorded still counts):
# the check holds two records of the model's activations at once.
MAX_ELEMENTS = 50_000_000

Record = dict[str, tuple[list[Any], list[Any]]]  # key -> (inputs, outputs), in call-end order
View = Callable[[Any], Optional[Any]]  # the part of a tensor compared (None: not compared)


def tensors(value: Any) -> list[Any]:
    """Every tensor in a value, in a fixed order (tuples, lists, mappings, ModelOutput)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, Mapping):
        return [t for key in value for t in tensors(value[key])]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in tensors(item)]
    return []


class Recorder:
    """``with Recorder(model) as record: model(...)``; ``record.calls`` is the record."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls: Record = {}
        self._counts: dict[str, int] = {}
        self._elements = 0
        self._handles: list[Any] = []

    def __enter__(self) -> Recorder:
        for name, module in self.model.named_modules():
            self._handles.append(module.register_forward_hook(self._hook(name), with_kwargs=True))
        return self

    def __exit__(self, *exc_info: object) -> None:
        for handle in self._handles:
            handle.remove()

    def _hook(self, name: str) -> Callable[..., None]:
        def hook(module: Any, args: Any, kwargs: Any, output: Any) -> None:
            index = self._counts.get(name, 0)
            self._counts[name] = index + 1
            taken = [_copy(t) for t in tensors((args, kwargs))]
            given = [_copy(t) for t in tensors(output)]
            self._elements += sum(t.numel() for t in (*taken, *given))
            if self._elements <= MAX_ELEMENTS:
                self.calls[f"{name}#{index}"] = (taken, given)

        return hook


def _copy(tensor: Any) -> Any:
    return tensor.detach().to("cpu", copy=True)


def whole(tensor: Any) -> Any:
    return tensor


def difference(reference: Any, other: Any) -> tuple[float, float] | None:
    """(largest absolute difference, the reference's largest magnitude), or None when the two
    cannot be compared value by value (shape or dtype differ)."""
    if reference.shape != other.shape or reference.dtype != other.dtype:
        return None
    if reference.numel() == 0:
        return 0.0, 0.0
    if not (reference.is_floating_point() or reference.is_complex()):
        return float((reference != other).any()), 1.0
    a, b = reference.detach().double(), other.detach().double()
    same_nan = torch.isnan(a) & torch.isnan(b)
    gap = (a - b).abs().masked_fill(same_nan, 0).nan_to_num(float("inf"))
    return float(gap.max()), float(a.abs().nan_to_num(0, float("inf"), float("inf")).max())


def agree(reference: Any, other: Any, rtol: float) -> bool:
    found = difference(reference, other)
    return found is not None and found[0] <= rtol * found[1]


def compare_lists(
    reference: list[Any], other: list[Any], rtol: float, view: View = whole
) -> dict[str, Any]:
    """Whether two lists of tensors agree: ``{"equal": True}`` or where the first disagrees
    (``index``, and ``diff``/``scale``, or ``shape``/``count``)."""
    if len(reference) != len(other):
        return {"equal": False, "count": [len(reference), len(other)]}
    for index, (a, b) in enumerate(zip(reference, other)):
        a, b = view(a), view(b)
        if a is None or b is None:
            continue
        found = difference(a, b)
        if found is None:
            return {"equal": False, "index": index, "shape": [list(a.shape), list(b.shape)]}
        diff, scale = found
        if diff > rtol * scale:
            return {"equal": False, "index": index, "diff": diff, "scale": scale}
    return {"equal": True}


def first_difference(
    reference: Record, other: Record, rtol: float, view: View = whole
) -> dict[str, Any] | None:
    """The first call of ``other`` (in its order) whose inputs agree with ``reference``'s call
    of the same key and whose outputs do not: ``{"module", "call", "diff", "scale"}``."""
    for key, (taken, given) in other.items():
        known = reference.get(key)
        if known is None:
            continue
        if not compare_lists(known[0], taken, rtol, view)["equal"]:
            continue
        outputs = compare_lists(known[1], given, rtol, view)
        if not outputs["equal"]:
            name, _, call = key.rpartition("#")
            return {
                "module": name,
                "call": int(call),
                "diff": outputs.get("diff"),
                "scale": outputs.get("scale"),
            }
    return None


def saved(record: Record) -> dict[str, Any]:
    """A record as plain containers ``torch.load(weights_only=True)`` reads back in order."""
    return {"keys": list(record), "calls": [[list(i), list(o)] for i, o in record.values()]}


def loaded(value: Mapping[str, Any]) -> Record:
    return {key: (list(call[0]), list(call[1])) for key, call in zip(value["keys"], value["calls"])}
