"""Inside the sandbox child: serve one revision's model-check requests, one after another.

The long-lived child of a model session (``checks.model.session``), started once per revision
with the program ``model.child.serve:serve``: one interpreter start and one ``import torch``
for every model check of the gate. It reads one line per request from the session's request
pipe, the path of a JSON file (requests may be large):

    {"id": N, "program": "gradient.child.probe:probe", "kwargs": {...}, "seed": S,
     "target": {"module": ..., "path": ..., "attr": ...}}

and answers each with one JSON line on the reply pipe, in the shape ``sandbox.child`` sends
its one message, plus the id:

    {"id": N, "ok": true, "value": ...} | {"id": N, "ok": false, "phase": ..., "error": ...}

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
import gc
import importlib
import json
import os
import sys
from typing import Any, Callable

from ...sandbox.child import PROTOCOL, Target, call_program, error, program_named

Program = Callable[[dict[str, Any], Target], Any]


def serve(request: dict[str, Any], target: Target) -> dict[str, Any]:
    """The session's program: answer requests until the request pipe ends."""
    pipes = request["kwargs"]["session"]
    warm(request["kwargs"].get("imports") or ())
    served = 0
    with open(pipes["requests"], "rb") as requests:
        replies = os.open(pipes["replies"], os.O_WRONLY)
        try:
            for line in requests:
                _answer_file(request, line.decode().strip(), replies)
                served += 1
                free()
        finally:
            os.close(replies)
    return {"served": served}


def _answer_file(started: dict[str, Any], path: str, replies: int) -> None:
    """Read one request, answer it; what it held is garbage once this returns."""
    with open(path, encoding="utf-8") as file:
        asked = json.load(file)
    _send(replies, answer(started, asked))


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
    return message


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
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
