"""Naming the op behind a non-finite gradient or a failed backward, by re-running the step.

Two passes over the same step (same parameters, same RNG state): the forward under a
TorchFunctionMode that notes the first op whose output is non-finite although its inputs were
finite (`x / x.norm()` on a zero row: the NaN is born in the forward), then the backward under
``torch.autograd.detect_anomaly(check_nan=True)``, which names the backward function that
produced NaN and warns with the forward traceback of the op that created it.
"""

from __future__ import annotations

import os
import re
import traceback
import warnings
from typing import Any, Callable

_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in [^\n]*\n\s+(?P<code>[^\n]*)')
_RETURNED = re.compile(r"Function '(\w+)' returned nan")
_DETECTED = re.compile(r"Error detected in (\w+)")
_TORCH = os.sep + "torch" + os.sep


def _nonfinite(value: Any) -> bool:
    import torch

    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            if item.is_floating_point() and item.numel() and not bool(torch.isfinite(item).all()):
                return True
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return False


def _where(frames: list[tuple[str, int, str]], root: str) -> dict[str, Any] | None:
    """The innermost frame in the revision's tree, else the innermost outside torch."""
    prefix = root.rstrip(os.sep) + os.sep
    ours = [f for f in frames if f[0].startswith(prefix)]
    others = [f for f in frames if _TORCH not in f[0] and "_gradgate_child" not in f[0]]
    candidates = ours or others
    if not candidates:
        return None
    path, line, code = candidates[-1]
    shown = path[len(prefix) :] if path.startswith(prefix) else path
    return {"file": shown, "line": line, "code": code.strip()}


def _first_nonfinite_op(root: str) -> Any:
    from torch.overrides import TorchFunctionMode

    class FirstNonFinite(TorchFunctionMode):
        found: dict[str, Any] | None = None

        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            out = func(*args, **(kwargs or {}))
            if self.found is None and _nonfinite(out) and not _nonfinite((args, kwargs)):
                frames = [
                    (f.filename, f.lineno or 0, f.line or "") for f in traceback.extract_stack()
                ]
                name = getattr(func, "__name__", None) or repr(func)
                self.found = {
                    "op": name.strip("_"),
                    "phase": "forward",
                    **(_where(frames, root) or {}),
                }
            return out

    return FirstNonFinite()


def locate(step: Callable[[], Any], *, root: str) -> dict[str, Any]:
    """Run ``step`` (forward, loss and backward of the failing step) under both detectors.

    Returns what was found: ``op``, ``phase`` ("forward" or "backward"), ``file``, ``line``,
    ``code`` (any may be missing), and ``message``: the error the backward raised, if any.
    """
    import torch

    detector = _first_nonfinite_op(root)
    message = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly(check_nan=True), detector:
                step()
        except Exception as exc:  # the failure we re-ran the step to explain
            message = f"{type(exc).__name__}: {exc}"
    if detector.found is not None:
        return dict(detector.found, message=message)
    found: dict[str, Any] = {"phase": "backward", "message": message}
    named = _RETURNED.search(message or "")
    for warning in caught:
        text = str(warning.message)
        detected = _DETECTED.search(text)
        if detected is None:
            continue
        found["op"] = detected.group(1)
        frames = [(m["file"], int(m["line"]), m["code"]) for m in _FRAME.finditer(text)]
        found.update(_where(frames, root) or {})
        break
    if named is not None and "op" not in found:
        found["op"] = named.group(1)
    return found
