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
model built again), so a check's result does not depend on the checks before it. The end of
the request pipe ends the child; the parent stops it when a request runs past its deadline.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

from ...sandbox.child import PROTOCOL, Target, call_program, error, program_named

Program = Callable[[dict[str, Any], Target], Any]


def serve(request: dict[str, Any], target: Target) -> dict[str, Any]:
    """The session's program: answer requests until the request pipe ends."""
    pipes = request["kwargs"]["session"]
    served = 0
    with open(pipes["requests"], "rb") as requests:
        replies = os.open(pipes["replies"], os.O_WRONLY)
        try:
            for line in requests:
                with open(line.decode().strip(), encoding="utf-8") as file:
                    asked = json.load(file)
                _send(replies, answer(request, asked))
                served += 1
        finally:
            os.close(replies)
    return {"served": served}


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
