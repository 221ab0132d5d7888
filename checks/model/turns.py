"""How a model check runs its revisions: both children started at once, then the requests one
at a time (base, then head), together within the check's one ``timeout_s``.

One at a time, because each child's torch already uses every core the machine gives it: two
probes at once only take turns on the same cores, slower than one after the other, with both
models in memory. What overlaps well is a child's start, the interpreter and ``import torch``,
which run on one thread: ``ModelSessions.start`` starts both children before the first request.
Base runs first, so that when both revisions fail, base's error is the one reported.
"""

from __future__ import annotations

import time

from gradgate.checks.errors import SandboxError


class Deadline:
    """The end of a check's ``timeout_s``, shared by its requests at both revisions."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._ends = time.monotonic() + timeout_s

    def left(self, revision: str) -> float:
        """The seconds a request at ``revision`` may take (one decimal, which reads well; at
        least 0.1); a timeout naming ``revision`` when the check's time has run out."""
        remaining = self._ends - time.monotonic()
        if remaining <= 0:
            limit = f"`timeout_s` ({self.timeout_s:g} s)"
            message = f"the check's {limit} ran out before {revision} could run"
            raise SandboxError(message, kind="timeout", revision=revision)
        return max(round(remaining, 1), 0.1)
