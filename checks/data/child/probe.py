"""The `data` check's program: build the transform, feed it the input, encode what comes out.

The factory returns the transform (a callable), a dataset (``dataset``: read at the indices
asked for), or a mapping with ``transform`` and optionally ``inputs`` (a list of the user's own
inputs), or with ``dataset`` and optionally ``indices``. Without inputs, the synthetic image of
``inputs.synthetic`` is offered as a NumPy HWC array, a PIL image, then a CHW uint8 tensor, in
that order (or the order the request names), and the first form the transform accepts is used.
Each input goes through the transform twice, with every RNG seeded the same before each call,
so the parent can tell a changed transform from a nondeterministic one; when the two calls
differ, ``trace`` finds the user's line where they first did.
"""

from __future__ import annotations

import random
import sys
from typing import Any, Callable

from ...sandbox.child import Target, seed_libraries
from .dataset import classes, indices_for, is_dataset, item_call
from .encode import agree, encode
from .inputs import FORMS, as_form, described, synthetic
from .trace import first_difference

Call = Callable[[], Any]
_RNG_LIBRARIES = frozenset({"torch", "numpy"})  # seeded by seed_libraries once imported


def _seed(seed: int | None) -> None:
    if seed is None:
        return
    random.seed(seed)
    seed_libraries(seed)


def _unpack(made: Any) -> dict[str, Any]:
    """What the factory returned, as ``transform``, ``dataset``, ``inputs`` and ``indices``."""
    if isinstance(made, dict):
        return {k: made.get(k) for k in ("transform", "dataset", "inputs", "indices")}
    if isinstance(made, tuple) and len(made) == 2 and is_dataset(made[0]):
        return {"dataset": made[0], "indices": made[1]}
    if is_dataset(made):
        return {"dataset": made}
    return {"transform": made}


class _Runner:
    """Calls seeded the same, twice each; the first pair that differs is traced."""

    def __init__(self, spec: dict[str, Any], request: dict[str, Any]) -> None:
        self.seed: int | None = request["seed"]
        self.tolerance = float(spec.get("tolerance") or 0.0)
        self.folders = [request["root"], *(spec.get("extra_path") or [])]
        self.root: str = request["root"]
        self.unseeded: dict[str, Any] | None = None
        self.traced = False

    def seeded(self, call: Call) -> Call:
        def run() -> Any:
            before = _RNG_LIBRARIES & sys.modules.keys()
            _seed(self.seed)
            value = call()
            if _RNG_LIBRARIES & sys.modules.keys() != before:
                # The call imported torch or NumPy itself, after they were seeded (a transform
                # that imports torchvision inside): its draws came from their import-time
                # state. Call it again now that they are seeded, as every later call will be.
                _seed(self.seed)
                value = call()
            return value

        return run

    def twice(self, call: Call) -> list[Any]:
        """The first call's encoded outputs, and the second's where they differ (else None)."""
        run = self.seeded(call)
        first, second = encode(run()), encode(run())
        if agree(first, second, self.tolerance):
            return [first, None]
        if not self.traced:
            self.traced = True
            self.unseeded = first_difference(run, self.folders, self.root)
        return [first, second]


def probe(request: dict[str, Any], target: Target) -> Any:
    spec = request["kwargs"]["data"]
    for folder in reversed(spec.get("extra_path") or []):
        sys.path.insert(1, folder)  # after the revision's root, which stays first
    runner = _Runner(spec, request)
    _seed(runner.seed)
    made = target.load()()
    parts = _unpack(made)
    transform, dataset = parts.get("transform"), parts.get("dataset")
    if transform is not None and dataset is not None:
        return {"problem": {"code": "both"}}
    if dataset is not None:
        return _read(runner, dataset, parts.get("indices") or spec.get("indices"))
    if not callable(transform):
        got = type(made).__name__ if transform is None else type(transform).__name__
        return {"problem": {"code": "not-callable", "got": got}}
    to_eval = getattr(transform, "eval", None)
    if callable(to_eval):
        to_eval()  # an nn.Module: eval-style, no dropout or batch statistics
    inputs = parts.get("inputs")
    if inputs is not None:
        if not isinstance(inputs, (list, tuple)) or not inputs:
            return {"problem": {"code": "bad-inputs", "got": type(inputs).__name__}}
        runs = [runner.twice(_bound(transform, value)) for value in inputs]
        return {"form": "yours", "runs": runs, "unseeded": runner.unseeded}
    pixels = synthetic()
    failed: BaseException | None = None
    for form in spec.get("forms") or FORMS:
        value = as_form(form, pixels)
        if value is None:
            continue
        try:
            runs = [runner.twice(_bound(transform, value))]
        except Exception as exc:  # this form is not what the transform takes: try the next
            failed = exc
            continue
        source = described(pixels)
        return {"form": form, "runs": runs, "input": source, "unseeded": runner.unseeded}
    if failed is None:
        return {"problem": {"code": "no-form"}}
    raise failed


def _read(runner: _Runner, dataset: Any, given: Any) -> dict[str, Any]:
    indices = indices_for(dataset, given)
    if indices is None:
        return {"problem": {"code": "bad-indices", "got": repr(given)[:80]}}
    runs, read = [], []
    for index in indices:
        try:
            runs.append(runner.twice(item_call(dataset, index)))
        except IndexError:  # the default indices of a short iterable dataset
            if given is not None:
                raise
            break
        read.append(index)
    if not runs:
        return {"problem": {"code": "no-items", "got": repr(indices)[:80]}}
    return {
        "form": "dataset",
        "runs": runs,
        "labels": [f"index {index}" for index in read],
        "classes": classes(dataset),
        "unseeded": runner.unseeded,
    }


def _bound(transform: Callable[[Any], Any], value: Any) -> Call:
    return lambda: transform(value)
