"""The reaper: jobs whose worker died are enqueued again; old delivery ids and dead jobs'
directories are removed. Each worker runs a pass at start and then every half lease."""

from __future__ import annotations

from collections.abc import Callable, Collection

from gradgate.bot.app import logs
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.state import run_lease
from gradgate.bot.git.mirror import Mirrors

Reaper = Callable[[], None]
# A job no worker has started this long after it was enqueued lost its queue message (or waits
# behind a long backlog: then the second message is a harmless duplicate).
QUEUED_S = 3600.0


def reaper(queues: Queues, mirrors: Mirrors | None = None, running: Collection[str] = ()) -> Reaper:
    """One pass. ``mirrors``: this worker's, whose worktrees of jobs no one runs are removed
    (``running``: the jobs this worker runs, whose leases may be a moment from renewal)."""

    def reap() -> None:
        state = queues.state
        lease_s = queues.settings.lease_s
        for job in state.ledger.orphans(state.leases, grace_s=lease_s, queued_s=QUEUED_S):
            logs.get().warning("re-enqueueing a job whose worker stopped", extra={"job": job.id})
            state.leases.clear_lapsed(run_lease(job.id))  # not started: once per QUEUED_S at most
            queues.enqueue(job)
        state.deliveries.prune()
        if mirrors is not None:
            live = {
                e.job.id for e in state.ledger.entries() if state.leases.holder(run_lease(e.job.id))
            }
            mirrors.sweep(live | set(running))

    return reap
