"""Inside the sandbox child: serve one revision's model-check requests, one after another.

The long-lived child of a model session (``checks.model.session``), started once per revision
with the program ``model.child.serve:serve``: one interpreter start and one ``import torch``
for every model check of the gate. It reads one JSON line per request from the request pipe,
a descriptor it inherits from the parent (no file: nothing the child can write is ever opened
by the parent by name):

    {"id": N, "program": "gradient.child.probe:probe", "kwargs": {...}, "seed": S,
     "target": {"module": ..., "path": ..., "attr": ...}}

and answers each with one JSON line on the reply pipe, in the shape ``sandbox.child`` sends
its one message, plus the id and the tree's files imported so far (the result cache's key):

    {"id": N, "ok": true, "value": ..., "files": [...]} | {"id": N, "ok": false, ...}

Programs leave files for the parent in the child's exchange, a folder in its own /tmp and so
under its disk cap (``request["exchange"]``; ``exchange_file`` names a file there). The parent
takes one out with ``{"id": N, "take": NAME}``: the answer ``{"id": N, "ok": true, "value":
{"bytes": L}}`` is followed on the reply pipe by the file's L bytes. Only a regular file
with one link is handed over (not a symlink, FIFO or hard link planted there); the parent
reads at most the disk cap's worth either way.

Each request runs its program as a fresh child would (``random`` and torch seeded again, the
model built again), so a check's result does not depend on the checks before it. After each
answer the child hands back what the request freed (a collection, then glibc's
``malloc_trim``), so an idle child does not hold a model's worth of heap while the other
revision's child works. The start request may name modules to import before the first request
(``imports``: torch), so that a child started ahead of its work spends that time at once. The
end of the request pipe ends the child; the parent stops it when a request runs past its
deadline.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import gc
import importlib
import json
import os
import stat
import sys
import tempfile
from typing import Any, Callable

from ...sandbox.child import PROTOCOL, Target, call_program, error, program_named

EXCHANGE = "gradgate-exchange"  # the exchange's name in the child's /tmp
Program = Callable[[dict[str, Any], Target], Any]


def serve(request: dict[str, Any], target: Target) -> dict[str, Any]:
    """The session's program: answer requests until the request pipe ends."""
    pipes = request["kwargs"]["session"]
    incoming, replies = int(pipes["requests"]), int(pipes["replies"])
    for fd in (incoming, replies):  # kept from processes the user's code starts
        os.set_inheritable(fd, False)
    exchange = os.path.join(tempfile.gettempdir(), EXCHANGE)
    os.makedirs(exchange, mode=0o700, exist_ok=True)
    started = dict(request, exchange=exchange)
    warm(request["kwargs"].get("imports") or ())
    served = 0
    with os.fdopen(incoming, "rb") as requests:
        try:
            for line in requests:
                _answer_line(started, line, replies)
                served += 1
                free()
        finally:
            os.close(replies)
    return {"served": served}


def _answer_line(started: dict[str, Any], line: bytes, replies: int) -> None:
    """Read one request, answer it; what it held is garbage once this returns."""
    asked = json.loads(line)
    if "take" in asked:
        hand_over(replies, asked["id"], started, str(asked["take"]))
    else:
        _send(replies, answer(started, asked))


def exchange_file(request: dict[str, Any], name: str) -> str:
    """The path of the file ``name`` in the child's exchange (a plain name, no folder)."""
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise ValueError(f"not a file name for the exchange: {name!r}")
    return os.path.join(request["exchange"], name)


def hand_over(replies: int, number: int, started: dict[str, Any], name: str) -> None:
    """Send the exchange's regular file ``name`` after its header; an error message if it is
    none (a symlink is not followed, a FIFO not read). A file that shrinks meanwhile ends in
    zeros."""
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(exchange_file(started, name), flags)
    except (OSError, ValueError) as exc:
        if getattr(exc, "errno", None) == errno.ELOOP:
            exc = OSError(f"`{name}` is a symbolic link, not a file the child wrote itself")
        _send(replies, {"id": number, "ok": False, "phase": "call", "error": error(exc)})
        return
    with os.fdopen(fd, "rb") as file:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_nlink != 1:
            planted = OSError(f"`{name}` is not a file the child wrote itself (a FIFO, a folder, "
                              "a hard link)")  # fmt: skip
            _send(replies, {"id": number, "ok": False, "phase": "call", "error": error(planted)})
            return
        _send(replies, {"id": number, "ok": True, "value": {"bytes": status.st_size}})
        left = status.st_size
        while left:
            data = file.read(min(left, 1 << 20)) or bytes(min(left, 1 << 20))
            _write(replies, data)
            left -= len(data)


def warm(modules: Any) -> None:
    """Import ``modules`` now, before any request. One that fails is left to the request that
    needs it, which then says why."""
    for name in modules:
        with contextlib.suppress(Exception):
            importlib.import_module(str(name))


def free() -> None:
    """Give back to the system what the last request freed: Python's cycles, torch's cached
    GPU blocks, and the C heap glibc keeps for reuse (``malloc_trim``; skipped where the C
    library has none)."""
    gc.collect()
    torch = sys.modules.get("torch")
    with contextlib.suppress(Exception):
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.empty_cache()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


_TRIM: list[Any] = []  # the C library's malloc_trim once looked up (None where there is none)


def _malloc_trim() -> Any:
    if not _TRIM:
        found = None
        with contextlib.suppress(Exception):  # the process's own symbols: the C library's
            found = getattr(ctypes.CDLL(None), "malloc_trim", None)
        _TRIM.append(found)
    return _TRIM[0]


def answer(started: dict[str, Any], asked: dict[str, Any]) -> dict[str, Any]:
    """One request's message: ``asked`` names the program and the user's target (the model's
    factory, or the data check's transform) and carries its kwargs and seed; the rest (device,
    root, limits) is the start request's."""
    request = dict(started, program=asked["program"], kwargs=asked["kwargs"], seed=asked["seed"])
    request.update(asked["target"])
    try:
        program = program_named(asked["program"])
    except Exception as exc:  # gradgate's own files are broken: say so, as a start failure
        return {"id": asked["id"], "ok": False, "phase": "start", "error": error(exc)}
    message = run_one(program, request)
    message["id"] = asked["id"]
    message["files"] = imported(str(started.get("root") or ""))
    return message


def imported(root: str) -> list[str]:
    """The files under the revision's tree ``root`` that this child has imported so far
    (relative paths): what the parent's result cache keys a request's result by. Every module
    imported by any request counts: more files than one request needed only mean fewer hits."""
    if not root:
        return []
    top = os.path.realpath(root)
    found = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            continue
        real = os.path.realpath(path)
        if real.startswith(top + os.sep):
            found.add(os.path.relpath(real, top).replace(os.sep, "/"))
    return sorted(found)


def run_one(program: Program, request: dict[str, Any]) -> dict[str, Any]:
    """Run one check's program. The place for a tracer that watches a check's user code (the
    head revision's line coverage): start it before ``call_program``, stop it after."""
    return call_program(program, request)


def _send(fd: int, message: dict[str, Any]) -> None:
    message["protocol"] = PROTOCOL
    try:
        data = json.dumps(message, allow_nan=True).encode() + b"\n"
    except Exception as exc:  # a value JSON cannot hold
        failure = {"id": message["id"], "ok": False, "phase": "output", "error": error(exc)}
        data = json.dumps(dict(failure, protocol=PROTOCOL)).encode() + b"\n"
    _write(fd, data)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
