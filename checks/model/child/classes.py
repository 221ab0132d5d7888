"""Where the model's classes are written: for each module whose class is in the revision's tree,
the file, the class's first and last line, and its ``forward``'s first line.

Findings point at code with it (issue 20): the parent intersects a module's class with the
PR's changed lines to find the line that explains a finding. Classes from installed packages
(torch's own, a library's) are left out: the PR did not change them.
"""

from __future__ import annotations

import inspect
import os
from typing import Any


def class_sources(model: Any, root: str) -> dict[str, dict[str, Any]]:
    prefix = os.path.realpath(root) + os.sep
    seen: dict[type, dict[str, Any] | None] = {}
    out: dict[str, dict[str, Any]] = {}
    for name, module in model.named_modules():
        cls = type(module)
        if cls not in seen:
            seen[cls] = _source(cls, prefix)
        found = seen[cls]
        if found is not None:
            out[name] = found
    return out


def code_source(obj: Any, root: str) -> dict[str, Any] | None:
    """Where a class or function is written, in the shape of ``class_sources``' values (a
    function's name under "class"); None when it is not in the revision's tree."""
    return _source(obj, os.path.realpath(root) + os.sep)


def _source(cls: Any, prefix: str) -> dict[str, Any] | None:
    try:
        path = os.path.realpath(inspect.getsourcefile(cls) or "")
        lines, start = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return None
    if not path.startswith(prefix):
        return None
    code: Any = getattr(getattr(cls, "forward", None), "__code__", None)
    forward = start
    if code is not None and os.path.realpath(code.co_filename) == path:
        forward = code.co_firstlineno
    return {
        "class": cls.__name__,
        "file": path[len(prefix) :],
        "line": forward,
        "start": start,
        "end": start + len(lines) - 1,
    }
