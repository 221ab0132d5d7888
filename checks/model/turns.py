"""How a model check runs its revisions: both children started at once, then the requests one
at a time (base, then head), together within the check's one ``timeout_s``.

One at a time, because each child's torch already uses every core the machine gives it: two
probes at once only take turns on the same cores, slower than one after the other, with both
models in memory. What overlaps well is a child's start, the interpreter and ``import torch``,
which run on one thread: ``ModelSessions.start`` starts both children before the first request.
Base runs first, so that when both revisions fail, base's error is the one reported.

``revisions`` is that for every check that runs code at both revisions: the check's deadline,
the gate's model session (checkouts and children), the device, and the children started. A
check that wants fresh children (perf's rounds, metrics' eval) takes the checkouts and the
deadline and starts none.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from gradgate.checks.base import UserCodeSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import SandboxError
from gradgate.checks.model.device import Device, device_for
from gradgate.checks.model.session import REVISIONS, ModelSessions, model_sessions


class Deadline:
    """The end of a check's ``timeout_s``, shared by its requests at both revisions."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._ends = time.monotonic() + timeout_s

    def left(self, revision: str, *, before: str | None = None) -> float:
        """The seconds a request at ``revision`` may take (one decimal, which reads well; at
        least 0.1); a timeout naming ``revision`` when the check's time has run out, "before
        <revision> could run" or ``before`` what."""
        remaining = self._ends - time.monotonic()
        if remaining <= 0:
            limit = f"`timeout_s` ({self.timeout_s:g} s)"
            waiting = before or f"{revision} could run"
            message = f"the check's {limit} ran out before {waiting}"
            raise SandboxError(message, kind="timeout", revision=revision)
        return max(round(remaining, 1), 0.1)


class Revisions:
    """A check's two revisions: their checkouts and children (the gate's model session), the
    check's one deadline and the device its code runs on."""

    def __init__(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        sessions: ModelSessions,
        deadline: Deadline,
        device: str,
    ) -> None:
        self.ctx, self.settings, self.sessions = ctx, settings, sessions
        self.deadline, self.device = deadline, device

    def root(self, revision: str) -> Path:
        """The checkout of ``revision`` ("base" or "head"), made once per gate."""
        return self.sessions.root(self.ctx, revision)

    def left(self, revision: str, *, before: str | None = None) -> float:
        return self.deadline.left(revision, before=before)

    def run(self, revision: str, **request: Any) -> Any:
        """``ModelSessions.run`` at ``revision`` on this check's device, within what is left."""
        return self.sessions.run(
            self.ctx, self.settings, revision=revision, device=self.device,
            timeout_s=self.left(revision), **request,
        )  # fmt: skip

    def cached(self, revision: str, **request: Any) -> bool:
        """Whether the result cache holds this ``run`` request's value at ``revision``."""
        if request.get("readable"):
            return False  # reads files outside the trees: never cached
        hit = self.sessions.lookup(self.ctx, self.settings, revision=revision,
                                   device=self.device, **_asked(request))  # fmt: skip
        return hit is not None

    def key(self, revision: str, **request: Any) -> str | None:
        """The key of this ``run`` request's cache entry at ``revision`` (``ModelSessions.key``):
        what a request whose child reads a file this one's child left is keyed by."""
        if request.get("readable"):
            return None
        return self.sessions.key(self.ctx, self.settings, revision=revision,
                                 device=self.device, **_asked(request))  # fmt: skip

    def cached_entry(self, revision: str, **request: Any) -> bool:
        """Whether the result cache holds this ``run_entry`` request's value at ``revision``."""
        asked = {k: v for k, v in request.items() if k not in ("cache", "describe_problem")}
        hit = self.sessions.lookup_entry(self.ctx, self.settings, revision=revision,
                                         device=self.device, **asked)  # fmt: skip
        return hit is not None

    def run_entry(self, revision: str, **request: Any) -> Any:
        """``ModelSessions.run_entry`` at ``revision`` on this check's device, within what is
        left."""
        return self.sessions.run_entry(
            self.ctx, self.settings, revision=revision, device=self.device,
            timeout_s=self.left(revision), **request,
        )  # fmt: skip


def _asked(request: Mapping[str, Any]) -> dict[str, Any]:
    """A ``run`` request as the cache knows it: by what keys it (``keyed``, else its kwargs)."""
    asked = {k: v for k, v in request.items()
             if k not in ("cache", "also", "keyed", "fresh", "readable", "timeout_s")}  # fmt: skip
    if request.get("keyed") is not None:
        asked["kwargs"] = request["keyed"]
    return asked


@contextlib.contextmanager
def revisions(
    ctx: CheckContext,
    settings: UserCodeSettings,
    *,
    device: Device = "cpu",
    start: bool = True,
    entrypoint: str | None = None,
    key: str = "model",
    requests: Mapping[str, Mapping[str, Any]] | None = None,
) -> Iterator[Revisions]:
    """The two-revision run of a check, in this order: its deadline (``settings.timeout_s``, for
    all its requests together), the gate's model session, the device (``device_for``, asked at
    base), and, with ``start``, both revisions' children started for ``entrypoint``'s ``key``
    (``ModelSessions.start``), less those whose request (``requests``: the ``run`` arguments
    the check will ask at each revision) the result cache already answers. The check then
    asks base, then head."""
    deadline = Deadline(settings.timeout_s)
    with model_sessions(ctx) as sessions:
        # The base checkout, made only when torch must be asked: a cache hit needs none.
        chosen = device_for(ctx, settings, device, root=lambda: sessions.root(ctx, "base"))
        sides = Revisions(ctx, settings, sessions, deadline, chosen)
        if start:
            only = [r for r in REVISIONS if requests is None or r not in requests
                    or not sides.cached(r, **requests[r])]  # fmt: skip
            sessions.start(ctx, settings, entrypoint=entrypoint, key=key, device=chosen,
                           only=only)  # fmt: skip
        yield sides
