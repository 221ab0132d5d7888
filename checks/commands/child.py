"""Inside the sandbox child: run one documented command, as a reader would, and say how it ended.

Child-side (see ``checks.sandbox.child``): standard library only. The program ``run_command``
starts the command (and its preparation command first, if any) as a subprocess of the child,
so it runs under the sandbox's limits with everything it starts: torchrun's workers too. Every
Python process of the command gets ``sitecustomize`` from a folder put first on PYTHONPATH; its
``sys.excepthook`` writes the uncaught exception (type, message, the missing path of an
OSError, and the frames) as JSON to the report folder before Python prints the traceback as
usual, so the parent reads the exception as data instead of parsing stderr.

The answer: ``{"status": "ok" | "failed" | "timeout", "stage": "prepare" | "command",
"returncode", "errors": [...], "tail", "seconds"}``; frames inside the tree carry their path
relative to it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

_TAIL = 6000
# sitecustomize for every Python process of the command: report the uncaught exception, then
# let Python print it as usual. SystemExit never reaches an excepthook.
_HOOK = """\
import json, os, sys

def _gradgate_report(kind, value, tb):
    try:
        frames = []
        while tb is not None:
            code = tb.tb_frame.f_code
            frames.append([code.co_filename, tb.tb_lineno, code.co_name])
            tb = tb.tb_next
        error = {
            "type": kind.__name__, "module": kind.__module__, "message": str(value)[:2000],
            "filename": getattr(value, "filename", None) if isinstance(value, OSError) else None,
            "frames": frames[-60:],
        }
        path = os.path.join(os.environ["GRADGATE_COMMAND_REPORT"], "%d.json" % os.getpid())
        with open(path, "w") as out:
            json.dump(error, out, default=str)
    except Exception:
        pass
    _gradgate_previous(kind, value, tb)

_gradgate_previous = sys.excepthook
sys.excepthook = _gradgate_report
"""


def run_command(request: dict[str, Any], target: Any) -> dict[str, Any]:
    """The program: ``kwargs["command"]`` holds ``argv``, ``env``, ``prepare`` (an argv or
    None) and ``timeout_s``; ``{python}`` in an argv is the user's interpreter."""
    spec = request["kwargs"]["command"]
    root = request["root"]
    hooks = tempfile.mkdtemp(prefix="gradgate-hook-")
    report = tempfile.mkdtemp(prefix="gradgate-report-")
    with open(os.path.join(hooks, "sitecustomize.py"), "w") as out:
        out.write(_HOOK)
    env = dict(os.environ)
    env.update(spec.get("env") or {})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (hooks, env.get("PYTHONPATH")) if p)
    env["GRADGATE_COMMAND_REPORT"] = report
    deadline = time.monotonic() + float(spec["timeout_s"])
    started = time.monotonic()
    stages = [("prepare", spec["prepare"])] if spec.get("prepare") else []
    stage = "command"
    for stage, argv in [*stages, ("command", spec["argv"])]:  # noqa: B007 (read after the loop)
        status, code, tail = _run(_argv(argv), root, env, deadline)
        if status != "ok":
            break
    return {
        "status": status,
        "stage": stage,
        "returncode": code,
        "errors": _errors(report, root),
        "tail": tail,
        "seconds": round(time.monotonic() - started, 3),
    }


def _argv(argv: list[str]) -> list[str]:
    return [sys.executable if word == "{python}" else word for word in argv]


def _run(argv: list[str], root: str, env: dict[str, str], deadline: float) -> tuple[str, int, str]:
    with tempfile.TemporaryFile() as output:
        try:
            process = subprocess.Popen(
                argv, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=output,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            return "failed", 127, f"could not start `{argv[0]}`: {exc}"
        try:
            code = process.wait(timeout=max(deadline - time.monotonic(), 0.1))
            status = "ok" if code == 0 else "failed"
        except subprocess.TimeoutExpired:
            status, code = "timeout", -signal.SIGKILL
        with contextlib.suppress(OSError):  # what it left: torchrun's or DataLoader's workers
            os.killpg(process.pid, signal.SIGKILL)
        if status == "timeout":
            process.wait()
        output.seek(max(output.seek(0, os.SEEK_END) - _TAIL, 0))
        tail = output.read().decode("utf-8", "replace")
    return status, code, tail


def _errors(report: str, root: str) -> list[dict[str, Any]]:
    """The uncaught exceptions the command's processes reported, oldest first; each frame is
    ``[file, line, function, path relative to the tree or None]``."""
    found = []
    inside = root.rstrip(os.sep) + os.sep
    for name in os.listdir(report):
        path = os.path.join(report, name)
        try:
            with open(path) as file:
                error = json.load(file)
            error["at"] = os.path.getmtime(path)
        except (OSError, ValueError):
            continue
        for frame in error["frames"]:
            file_name = os.path.normpath(str(frame[0]))
            frame.append(file_name[len(inside) :] if file_name.startswith(inside) else None)
        missing = error.get("filename")
        if isinstance(missing, str):
            absolute = os.path.normpath(os.path.join(root, missing))
            error["missing"] = absolute[len(inside) :] if absolute.startswith(inside) else missing
        found.append(error)
    return sorted(found, key=lambda e: e["at"])
