"""The sandbox's child process: import the user's target, call it, send back one JSON message.

Run by ``checks.sandbox`` as ``python -s -P _sandbox_child.py REQUEST_FILE RESULT_FD``. It is a
script, not a package module: gradgate itself is not importable in the child (its package names,
``checks`` and ``bot``, are common enough that a user's repo could shadow them), so this file uses
the standard library only. The message goes to RESULT_FD, never stdout, which user code owns:

    {"ok": true, "value": ...}
    {"ok": false, "phase": "import" | "call" | "output",
     "error": {"type", "message", "traceback", "memory", "missing"}}

``checks.sandbox_outcome`` turns the message into a return value or a SandboxError; the
wording lives there.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
import importlib.util
import json
import os
import random
import resource
import sys
import traceback
from typing import Any

_HERE = os.path.abspath(__file__)
_IMPORTLIB = os.path.dirname(importlib.__file__) + os.sep
_TRACEBACK_FRAMES = 8
# Allocation failures that are not MemoryError: torch's CPU allocator raises RuntimeError
# ("DefaultCPUAllocator: can't allocate memory ... Error code 12 (Cannot allocate memory)"),
# and CUDA OOM is torch.OutOfMemoryError, a RuntimeError subclass.
_MEMORY_WORDS = ("can't allocate memory", "cannot allocate memory", "out of memory")


class _Missing(Exception):
    """The target itself is missing (as opposed to user code failing while it is imported)."""

    def __init__(self, what: str, name: str) -> None:
        super().__init__(name)
        self.what = what  # "module", "file", "attribute" or "callable"
        self.name = name


def _cap_memory(request: dict[str, Any]) -> None:
    limit_bytes, which = request["memory_bytes"], request["memory_rlimit"]
    if limit_bytes is None or which is None:
        return
    rlimit = getattr(resource, which)
    _soft, hard = resource.getrlimit(rlimit)
    cap = limit_bytes if hard == resource.RLIM_INFINITY else min(limit_bytes, hard)
    # Lower the hard limit too, so user code cannot raise the cap again.
    resource.setrlimit(rlimit, (cap, cap))


def _load(request: dict[str, Any]) -> Any:
    if request["path"] is not None:
        path = request["path"]
        if not os.path.isfile(path):
            raise _Missing("file", path)
        # Like `python path/to/file.py`: the file's directory is importable, after the root.
        sys.path.insert(1, os.path.dirname(path))
        spec = importlib.util.spec_from_file_location("__gradgate_entry__", path)
        if spec is None or spec.loader is None:
            raise _Missing("file", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses and pickle look the module up here
        spec.loader.exec_module(module)
        return module
    name = request["module"]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        # Missing target vs. the target importing a dependency that is not installed.
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise _Missing("module", exc.name) from None
        raise


def _resolve(request: dict[str, Any]) -> Any:
    obj = _load(request)
    for part in request["attr"].split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise _Missing("attribute", part) from None
    if not callable(obj):
        raise _Missing("callable", request["attr"])
    return obj


def _seed_libraries(seed: int) -> None:
    # Seed only what the user's code already imported: importing torch here would cost every
    # child seconds. torch imported later, inside the function, starts from torch's own fixed
    # default seed, which is the same in every fresh process.
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)  # seeds every CUDA device as well


def _error(exc: BaseException, *, missing: str | None = None) -> dict[str, Any]:
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename != _HERE
        and not frame.filename.startswith(("<frozen importlib", _IMPORTLIB))
    ][-_TRACEBACK_FRAMES:]
    text = "".join(traceback.format_list(frames) + traceback.format_exception_only(exc))
    names = {cls.__name__ for cls in type(exc).__mro__}
    message = str(exc)
    return {
        "type": type(exc).__name__,
        "message": message,
        "traceback": "Traceback (most recent call last):\n" + text if frames else text,
        "memory": bool(names & {"MemoryError", "OutOfMemoryError"})
        or any(word in message.lower() for word in _MEMORY_WORDS),
        "missing": missing,
    }


def _run(request: dict[str, Any]) -> dict[str, Any]:
    sys.path.insert(0, request["root"])
    seed = request["seed"]
    if seed is not None:
        random.seed(seed)
    try:
        function = _resolve(request)
        if seed is not None:
            _seed_libraries(seed)
    except _Missing as exc:
        return {"ok": False, "phase": "import", "error": _error(exc, missing=exc.what)}
    except Exception as exc:
        return {"ok": False, "phase": "import", "error": _error(exc)}
    try:
        value = function(**request["kwargs"])
    except Exception as exc:
        return {"ok": False, "phase": "call", "error": _error(exc)}
    return {"ok": True, "value": value}


def _encode(message: dict[str, Any]) -> bytes:
    try:
        # NaN and infinity are allowed: a gradient check has to be able to report them.
        return json.dumps(message, allow_nan=True).encode()
    except Exception as exc:
        failure = {"ok": False, "phase": "output", "error": _error(exc)}
        return json.dumps(failure).encode()


def main(argv: list[str]) -> None:
    request_path, result_fd = argv[1], int(argv[2])
    # Keep the result channel away from processes the user's code starts.
    os.set_inheritable(result_fd, False)
    with open(request_path, encoding="utf-8") as file:
        request = json.load(file)
    faulthandler.enable()  # a segfault leaves a Python traceback in the output tail
    _cap_memory(request)
    data = _encode(_run(request))
    view = memoryview(data)
    while view:
        view = view[os.write(result_fd, view) :]
    os.close(result_fd)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    # Skip interpreter teardown: non-daemon threads left by user code would hang it, and a
    # crash in some extension's destructor must not turn a result into a failure.
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv)
