"""Inside the sandbox child: which line of the user's code first made two seeded calls differ.

When one input, with every RNG seeded the same, comes out of the transform differently on two
calls, something drew from a generator the seeds do not reach (``random.Random()``,
``np.random.default_rng()``, ``torch.Generator().seed()``, ``os.urandom``). The transform is
called twice more under ``sys.settrace``, recording in the user's own files (under the revision's
root or the config's folder) each line's local values and each return value as digests. The
first digest that differs between the two calls points at the line that produced it: the line
run just before, in that frame (or the returning line, for a return value). Library frames are
not traced: a draw inside a library shows as the user's line that called it. Diagnostic only,
so it costs nothing when the two calls agree.

Child-side: the standard library, and torch only through values it already holds.
"""

from __future__ import annotations

import linecache
import os
import sys
from typing import Any, Callable

_DEPTH = 3  # how far into lists, tuples and mappings a digest looks
_ITEMS = 64  # and how many items of each


def _digest(value: Any, depth: int = 0) -> Any:
    """A value comparable across two calls, or None for what cannot be compared (objects whose
    repr holds an address)."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        flat = value.detach().flatten()
        if flat.is_floating_point() or flat.is_complex():
            flat = flat.double()
        items = flat.cpu().tolist() if flat.numel() <= 4096 else [float(flat.double().sum())]
        return ("tensor", tuple(value.shape), str(value.dtype), hash(tuple(items)))
    if hasattr(value, "tobytes") and hasattr(value, "shape"):  # a NumPy array or scalar
        return (
            "array",
            tuple(value.shape),
            str(getattr(value, "dtype", "")),
            hash(value.tobytes()),
        )
    if hasattr(value, "getbands") and hasattr(value, "tobytes"):  # a PIL image
        return ("image", value.mode, value.size, hash(value.tobytes()))
    if depth >= _DEPTH:
        return None
    if isinstance(value, (list, tuple)):
        return tuple(_digest(item, depth + 1) for item in value[:_ITEMS])
    if isinstance(value, dict):
        items = list(value.items())[:_ITEMS]
        return tuple((repr(k), _digest(v, depth + 1)) for k, v in items if isinstance(k, str))
    return None


class _Recorder:
    """Events of one call: (file, the line that ran, the line next, digest of the values)."""

    def __init__(self, folders: list[str]) -> None:
        self.folders = [os.path.join(os.path.abspath(f), "") for f in folders if f]
        self.events: list[tuple[str, int, int, Any]] = []
        self._last: dict[int, int] = {}  # frame id -> the line it ran last
        self._mine: dict[str, bool] = {}

    def user_file(self, filename: str) -> bool:
        mine = self._mine.get(filename)
        if mine is None:
            path = os.path.abspath(filename)  # "<frozen codecs>" is no file of the user's
            mine = (
                not filename.startswith("<")
                and any(path.startswith(folder) for folder in self.folders)
                and not any(part in path for part in ("site-packages", "dist-packages"))
            )
            self._mine[filename] = mine
        return mine

    def global_trace(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "call" and self.user_file(frame.f_code.co_filename):
            self._last[id(frame)] = frame.f_lineno
            return self.local_trace
        return None

    def local_trace(self, frame: Any, event: str, arg: Any) -> Any:
        key = id(frame)
        filename = frame.f_code.co_filename
        if event == "line":
            ran = self._last.get(key, frame.f_lineno)
            values = tuple((n, _digest(v)) for n, v in sorted(frame.f_locals.items()))
            self.events.append((filename, ran, frame.f_lineno, values))
            self._last[key] = frame.f_lineno
        elif event == "return":
            line = frame.f_lineno
            self.events.append((filename, line, line, ("return", _digest(arg))))
            self._last.pop(key, None)
        return self.local_trace


def _recorded(call: Callable[[], Any], folders: list[str]) -> list[tuple[str, int, int, Any]]:
    recorder = _Recorder(folders)
    previous = sys.gettrace()
    sys.settrace(recorder.global_trace)
    try:
        call()
    except Exception:  # the calls already succeeded once; a failure here only ends the record
        pass
    finally:
        sys.settrace(previous)
    return recorder.events


def first_difference(
    seeded_call: Callable[[], Any], folders: list[str], root: str
) -> dict[str, Any] | None:
    """``{"file", "line", "code"}`` of the user's line whose result first differed between two
    seeded calls of ``seeded_call``, ``file`` relative to ``root`` where it is inside; None when
    the traced calls did not differ in the user's code."""
    first = _recorded(seeded_call, folders)
    second = _recorded(seeded_call, folders)
    for one, other in zip(first, second):
        if one != other:
            filename, line = one[0], one[1]
            path = os.path.abspath(filename)
            inside = os.path.join(os.path.abspath(root), "")
            shown = os.path.relpath(path, inside) if path.startswith(inside) else path
            code = linecache.getline(filename, line).strip()
            return {"file": shown.replace(os.sep, "/"), "line": line, "code": code[:200]}
    return None
