"""Inside the sandbox child: the user's eval at one revision, its numbers sent back as JSON.

Child-side (see ``checks.sandbox.child``): imports only the standard library and other
child-side modules. The program ``collect`` either calls the user's function (the sandbox's
target) or runs the script named in ``kwargs["script"]`` as ``__main__`` with
$GRADGATE_METRICS_FILE naming a fresh file for its JSON. It answers ``{"metrics": {...}}``,
where a value that is not a finite number is sent as ``{"not_number": "<repr>"}`` for the
parent to name, or ``{"problem": {...}}`` when the eval gave no mapping at all.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import runpy
import sys
import tempfile
from typing import Any

from ..sandbox.child import Target, seed_libraries

OUTPUT_VARIABLE = "GRADGATE_METRICS_FILE"
_REPR_CHARS = 80


def collect(request: dict[str, Any], target: Target) -> Any:
    script = request["kwargs"].get("script")
    if script is None:
        function = target.load()
        if request["seed"] is not None:
            seed_libraries(request["seed"])
        return _answer(function())
    if request["seed"] is not None:
        seed_libraries(request["seed"])
    return _run_script(str(script))


def _run_script(script: str) -> Any:
    handle, output = tempfile.mkstemp(prefix="gradgate-metrics-", suffix=".json")
    os.close(handle)
    os.environ[OUTPUT_VARIABLE] = output
    argv = sys.argv
    sys.argv = [script]
    sys.path.insert(1, os.path.dirname(script))  # like `python path/to/script.py`
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exited:
        if exited.code not in (None, 0):
            raise
    finally:
        sys.argv = argv
    with open(output, encoding="utf-8") as written:
        text = written.read()
    if not text.strip():
        return {"problem": {"code": "no-output"}}
    try:
        value = json.loads(text)
    except ValueError as bad:
        return {"problem": {"code": "not-json", "detail": str(bad)}}
    return _answer(value)


def _answer(value: Any) -> Any:
    if not isinstance(value, dict):
        return {"problem": {"code": "not-mapping", "type": type(value).__name__}}
    return {"metrics": {str(name): _number(item) for name, item in value.items()}}


def _number(value: Any) -> Any:
    """A finite float, else ``{"not_number": repr}``; one-element tensors and numpy scalars
    count (``.item()``), booleans do not."""
    if not isinstance(value, bool) and hasattr(value, "item") and callable(value.item):
        with contextlib.suppress(TypeError, ValueError, RuntimeError):
            value = value.item()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        if math.isfinite(number):
            return number
    return {"not_number": repr(value)[:_REPR_CHARS]}
