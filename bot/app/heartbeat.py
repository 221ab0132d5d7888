"""The leases a running job holds, renewed while it runs, and its cancellation.

A lease expires unless renewed (``state.Leases``), so one held by a worker killed with -9 frees
itself. While a job runs, a thread renews every lease it holds each third of the TTL and asks
``watch`` whether the job went stale (a newer push); then, or when a lease was lost to another
worker, ``cancelled`` is set and the job stops at its next step (its runner is killed).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType

from gradgate.bot.app import logs
from gradgate.bot.app.state import Leases


class Heartbeat:
    def __init__(
        self, leases: Leases, owner: str, ttl_s: float, *, watch: Callable[[], bool]
    ) -> None:
        self.leases = leases
        self.owner = owner
        self.ttl_s = ttl_s
        self.watch = watch
        self.cancelled = threading.Event()
        self._held: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True)

    def hold(self, name: str) -> bool:
        """Take the lease ``name`` (False: another owner holds it); renewed until released."""
        if not self.leases.acquire(name, self.owner, self.ttl_s):
            return False
        with self._lock:
            self._held.add(name)
        return True

    def release(self, name: str) -> None:
        with self._lock:
            self._held.discard(name)
        self.leases.release(name, self.owner)

    def release_all(self) -> None:
        with self._lock:
            held, self._held = self._held, set()
        for name in held:
            self.leases.release(name, self.owner)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self.ttl_s / 3):
            try:
                with self._lock:
                    held = set(self._held)
                lost = [n for n in held if not self.leases.renew(n, self.owner, self.ttl_s)]
                if lost:
                    logs.get().warning("lost the lease %s to another worker", lost[0])
                if lost or self.watch():
                    self.cancelled.set()
            except Exception as exc:  # the store may be down for a moment: try again next beat
                logs.get().warning("could not renew leases: %s", exc)
