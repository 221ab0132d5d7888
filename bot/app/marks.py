"""What a job marked in progress on GitHub for its head, kept so that the job can conclude it
when a newer push supersedes it (as Prow and Atlantis do): no check spins forever on the old
commit.

The runner's reader thread marks (``mark``: the pending check runs or statuses) while the
worker's own thread may be giving the job up. ``close`` ends marking and waits for a mark in
flight, so what it returns is all that was published; a plan that arrives after it marks
nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gradgate.bot.app.jobs import Left
from gradgate.bot.github.outcome import Pending
from gradgate.bot.github.ports import GitHubPort
from gradgate.bot.github.publish import Target, publish_superseded
from gradgate.checks.errors import GitHubError


@dataclass(frozen=True, slots=True)
class Mark:
    head_sha: str  # the commit the pending marks are on
    pending: Pending


class Marks:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: list[Mark] = []
        self._closed = False

    def mark(self, head_sha: str, publish: Callable[[], Pending]) -> None:
        """``publish`` the pending marks for ``head_sha``, unless the job is over."""
        with self._lock:  # held while publishing: ``close`` waits for a mark in flight
            if not self._closed:
                self._made.append(Mark(head_sha, publish()))

    def close(self) -> tuple[Mark, ...]:
        """No more marks; the ones made (again on a second call)."""
        with self._lock:
            self._closed = True
            return tuple(self._made)


def conclude_superseded(port: GitHubPort, made: Sequence[Mark], *, target: Target) -> None:
    """Each mark on a head that is no longer the PR's, concluded as superseded by the head it
    is now. A mark on the head as it is now stays: the job was stopped for losing its lease,
    and the worker that took the job over reports on that head. Every mark is tried; the first
    failure is raised after."""
    newer = port.pull(target.number).head_sha  # never stale: the head as it is now
    failed: GitHubError | None = None
    for mark in made:
        if mark.head_sha == newer:
            continue
        try:
            publish_superseded(
                port, mark.pending, head_sha=mark.head_sha, newer_head=newer, target=target
            )
        except GitHubError as exc:
            failed = failed or exc
    if failed is not None:
        raise failed


def to_left(pending: Pending) -> Left:
    runs = pending.check_runs
    return Left(None if runs is None else tuple(runs.items()), pending.running)


def from_left(left: Left) -> Pending:
    runs = left.check_runs
    return Pending(None if runs is None else dict(runs), running=left.running)
