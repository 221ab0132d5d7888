"""Inside the sandbox child: the rlimits the parent asked for, set before any user code runs."""

from __future__ import annotations

import resource
from typing import Any


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
