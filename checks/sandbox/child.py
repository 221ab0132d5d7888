"""Inside the sandbox child: run one gradgate program on the user's code, send back one message.

This runs under the user's interpreter (Python 3.9 or newer), where gradgate is not installed.
So this module, like every child-side module (a ``child.py``, or any module of a ``child/``
package, in ``gradgate.checks``), imports only the standard library, torch, and other
child-side modules by relative import. The parent copies those modules into the child's run
directory as the package ``_gradgate_child`` and starts it with ``run.BOOTSTRAP``, which
checks the Python version and calls :func:`main`.

A *program* is a function ``program(request, target)`` in a child-side module, named in the
request as ``"sandbox.child:call_target"`` (module path below ``_gradgate_child``). ``target``
is a :class:`Target` that imports the user's ``package.module:function`` or
``path/to/file.py:function`` on demand. The model checks bring their own programs; the default
one, :func:`call_target`, calls the user's function with the request's ``kwargs``.

The message goes to RESULT_FD, never stdout, which user code owns:

    {"protocol": N, "ok": true, "value": ...}
    {"protocol": N, "ok": false, "phase": "start" | "copy" | "import" | "call" | "output",
     "error": {"type", "message", "traceback", "memory", "disk", "missing"}}

``checks.sandbox.outcome`` turns it into a return value or a SandboxError; the wording
lives there.
"""

from __future__ import annotations

import contextlib
import errno
import faulthandler
import importlib
import importlib.util
import json
import os
import random
import resource
import shutil
import sys
from collections.abc import Callable
from typing import Any

# Bump when the request or the message changes shape; the parent refuses any other number.
PROTOCOL = 1
PACKAGE = "_gradgate_child"  # the name child-side modules have inside the child

_IMPORTLIB = os.path.dirname(importlib.__file__) + os.sep
_TRACEBACK_FRAMES = 8
# Allocation failures that are not MemoryError: torch's CPU allocator raises RuntimeError
# ("DefaultCPUAllocator: can't allocate memory ... Error code 12 (Cannot allocate memory)"),
# and CUDA OOM is torch.OutOfMemoryError, a RuntimeError subclass.
_MEMORY_WORDS = ("can't allocate memory", "cannot allocate memory", "out of memory")
# Out of disk: ENOSPC, EFBIG (RLIMIT_FSIZE; Python ignores SIGXFSZ), EDQUOT; torch.save words
# a full disk as "file write failed".
_DISK_ERRNOS = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
_DISK_WORDS = ("no space left on device", "file too large", "file write failed")


class Missing(Exception):
    """The target itself is missing (as opposed to user code failing while it is imported)."""

    def __init__(self, what: str, name: str) -> None:
        super().__init__(name)
        self.what = what  # "module", "file", "attribute" or "callable"
        self.name = name


class ImportFailed(Exception):
    """Importing user code raised ``cause``; reported in the ``import`` phase, not ``call``."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


class Target:
    """The user's ``module:function`` or ``file.py:function``; imported on first ``load()``."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.module: str | None = request.get("module")
        self.path: str | None = request.get("path")
        self.attr: str | None = request.get("attr")

    def load(self) -> Callable[..., Any]:
        if self.attr is None:
            raise Missing("callable", "(no target given)")
        try:
            obj = _load_module(self.module, self.path)
        except Missing:
            raise
        except Exception as exc:
            raise ImportFailed(exc) from exc
        for part in self.attr.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise Missing("attribute", part) from None
        if not callable(obj):
            raise Missing("callable", self.attr)
        return obj  # type: ignore[no-any-return]


def import_object(dotted: str) -> Any:
    """``package.module.Name`` -> the object, for ``_target_`` specs; import errors are Missing
    (the module or name is not there) or ImportFailed (user code raised while importing)."""
    module_name, _, name = dotted.rpartition(".")
    if not module_name:
        raise Missing("module", dotted)
    try:
        module = _load_module(module_name, None)
    except Missing:
        raise
    except Exception as exc:
        raise ImportFailed(exc) from exc
    try:
        return getattr(module, name)
    except AttributeError:
        raise Missing("attribute", name) from None


def _load_module(name: str | None, path: str | None) -> Any:
    if path is not None:
        if not os.path.isfile(path):
            raise Missing("file", path)
        # Like `python path/to/file.py`: the file's directory is importable, after the root.
        sys.path.insert(1, os.path.dirname(path))
        spec = importlib.util.spec_from_file_location("__gradgate_entry__", path)
        if spec is None or spec.loader is None:
            raise Missing("file", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses and pickle look the module up here
        spec.loader.exec_module(module)
        return module
    assert name is not None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        # Missing target vs. the target importing a dependency that is not installed.
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise Missing("module", exc.name) from None
        raise


def seed_libraries(seed: int) -> None:
    """Seed numpy and torch if user code already imported them.

    Importing torch here would cost every child seconds; torch imported later, inside the
    function, starts from torch's own fixed default seed, the same in every fresh process.
    """
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)  # seeds every CUDA device as well


def call_target(request: dict[str, Any], target: Target) -> Any:
    """The default program: call the user's function with the request's ``kwargs``."""
    function = target.load()
    if request["seed"] is not None:
        seed_libraries(request["seed"])
    return function(**request["kwargs"])


def _cap(which: str, limit: int) -> None:
    rlimit = getattr(resource, which)
    _soft, hard = resource.getrlimit(rlimit)
    cap = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    # Lower the hard limit too, so user code cannot raise the cap again.
    resource.setrlimit(rlimit, (cap, cap))


def apply_limits(request: dict[str, Any]) -> None:
    """The rlimits the parent asked for (``checks.sandbox.limits`` decides which)."""
    if request["memory_bytes"] is not None and request["memory_rlimit"] is not None:
        _cap(request["memory_rlimit"], request["memory_bytes"])
    if request.get("processes_rlimit") is not None:
        _cap("RLIMIT_NPROC", request["processes_rlimit"])
    if request.get("disk_bytes") is not None:
        _cap("RLIMIT_FSIZE", request["disk_bytes"])  # one file; the tmpfs caps them all


def copy_tree(source: str, target: str) -> None:
    """Copy the export into the run's capped tree (``checks.sandbox.disk``), leaving alone what
    is mounted there already (a virtualenv inside the checkout, bound read-only)."""

    def mounted(folder: str, names: list[str]) -> list[str]:
        inside = os.path.join(target, os.path.relpath(folder, source))
        return [n for n in names if os.path.ismount(os.path.join(inside, n))]

    shutil.copytree(source, target, symlinks=True, ignore=mounted, dirs_exist_ok=True)


def _ours(filename: str) -> bool:
    """Frames of the child machinery, left out of tracebacks shown to the user."""
    return (
        (os.sep + PACKAGE + os.sep) in filename
        or filename.startswith(("<frozen importlib", _IMPORTLIB))
        or filename == "<string>"  # the bootstrap
    )


def error(exc: BaseException, *, missing: str | None = None) -> dict[str, Any]:
    import traceback  # only on failure: it costs every child a few ms of start-up

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _ours(f.filename)]
    frames = frames[-_TRACEBACK_FRAMES:]
    text = "".join(traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc))
    names = {cls.__name__ for cls in type(exc).__mro__}
    message = str(exc)
    return {
        "type": type(exc).__name__,
        "message": message,
        "traceback": "Traceback (most recent call last):\n" + text if frames else text,
        "memory": bool(names & {"MemoryError", "OutOfMemoryError"})
        or any(word in message.lower() for word in _MEMORY_WORDS),
        "disk": getattr(exc, "errno", None) in _DISK_ERRNOS
        or any(word in message.lower() for word in _DISK_WORDS),
        "missing": missing,
    }


def program_named(name: str) -> Callable[[dict[str, Any], Target], Any]:
    """The child-side program ``"module.path:function"`` (module path below the package)."""
    module_name, _, function = name.partition(":")
    module = importlib.import_module(PACKAGE + "." + module_name)
    return getattr(module, function)  # type: ignore[no-any-return]


def _run(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("protocol") != PROTOCOL:
        message = "gradgate's parent speaks protocol {}, this child {}".format(
            request.get("protocol"),
            PROTOCOL,
        )
        return {
            "ok": False,
            "phase": "start",
            "error": {"type": "ProtocolMismatch", "message": message},
        }
    # gradgate's own program is imported before the revision's root is on sys.path, so a file
    # in the revision cannot stand in for it.
    program = program_named(request["program"])
    sys.path.insert(0, request["root"])
    return call_program(program, request)


def call_program(
    program: Callable[[dict[str, Any], Target], Any], request: dict[str, Any]
) -> dict[str, Any]:
    """The message for one call of ``program`` (``random`` seeded first): its value, or how it
    failed. A long-lived child (``model.child.serve``) calls it once per request."""
    if request["seed"] is not None:
        random.seed(request["seed"])
    try:
        return {"ok": True, "value": program(request, Target(request))}
    except Missing as exc:
        return {"ok": False, "phase": "import", "error": error(exc, missing=exc.what)}
    except ImportFailed as exc:
        return {"ok": False, "phase": "import", "error": error(exc.cause)}
    except Exception as exc:
        return {"ok": False, "phase": "call", "error": error(exc)}


def _copy_then_run(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("copy_tree"):
        try:
            copy_tree(*request["copy_tree"])
        except shutil.Error as exc:  # one (source, target, why) per file that failed
            failed = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
            why = str(failed[0][2]) if failed else str(exc)[:500]
            return {"ok": False, "phase": "copy", "error": error(OSError(why))}
        except OSError as exc:
            return {"ok": False, "phase": "copy", "error": error(exc)}
    return _run(request)


def _encode(message: dict[str, Any]) -> bytes:
    message["protocol"] = PROTOCOL
    try:
        # NaN and infinity are allowed: a gradient check has to be able to report them.
        return json.dumps(message, allow_nan=True).encode()
    except Exception as exc:
        failure = {"protocol": PROTOCOL, "ok": False, "phase": "output", "error": error(exc)}
        return json.dumps(failure).encode()


def main(request_path: str, result_fd: int) -> None:
    # Keep the result channel away from processes the user's code starts.
    os.set_inheritable(result_fd, False)
    with open(request_path, encoding="utf-8") as file:
        request = json.load(file)
    faulthandler.enable()  # a segfault leaves a Python traceback in the output tail
    apply_limits(request)
    data = _encode(_copy_then_run(request))
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
