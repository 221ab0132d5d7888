"""Inside the sandbox child: read the request, copy the tree, run the program, send the message.

:func:`main` is what ``run.BOOTSTRAP`` calls; :func:`call_program` is the part a long-lived
child (``model.child.serve``) calls once per request.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
import json
import os
import random
import shutil
import sys
from collections.abc import Callable
from typing import Any

from .errors import ImportFailed, Missing, error
from .limits import apply_limits
from .protocol import PACKAGE, PROTOCOL
from .target import Target


def copy_tree(source: str, target: str) -> None:
    """Copy the export into the run's capped tree (``checks.sandbox.disk``), leaving alone what
    is mounted there already (a virtualenv inside the checkout, bound read-only)."""

    def mounted(folder: str, names: list[str]) -> list[str]:
        inside = os.path.join(target, os.path.relpath(folder, source))
        return [n for n in names if os.path.ismount(os.path.join(inside, n))]

    shutil.copytree(source, target, symlinks=True, ignore=mounted, dirs_exist_ok=True)


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
