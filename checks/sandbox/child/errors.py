"""Inside the sandbox child: how user code failed, as the message's ``error``.

``Missing`` and ``ImportFailed`` tell the ``import`` phase from the ``call`` phase; ``error``
describes any exception for the parent, with a traceback of the user's frames only.
"""

from __future__ import annotations

import errno
import importlib
import os
from typing import Any

from .protocol import PACKAGE

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
