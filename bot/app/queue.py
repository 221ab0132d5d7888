"""The job queues: huey, on one SQLite file (one machine) or on Redis (workers on many).

Two huey queues, `cpu` and `gpu`; a `gradgate worker --queue gpu` consumes only the second.
A queue message carries only a job id: the job itself is JSON in the ledger (``state.Ledger``),
which is what a worker trusts, and what survives a worker killed mid-job.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from gradgate.bot.app.jobs import Job, Queue
from gradgate.bot.app.settings import AppSettings
from gradgate.bot.app.state import State
from huey import Huey, RedisHuey
from huey.consumer import Consumer
from huey.storage import BaseStorage, RedisStorage, SqliteStorage

TASK = "gradgate_run_job"


class _Sqlite(SqliteStorage):  # type: ignore[misc]
    """WAL with synchronous=NORMAL: a commit survives `kill -9` of any process (it is in the
    WAL, in the OS's cache) without an fsync per delivery; only a power cut can lose the last
    few. huey's own switch offers FULL (an fsync per commit) or OFF only.

    ``autocheckpoint=False`` (the webhook server): a commit never copies the WAL back into the
    database itself, which fsyncs twice and stalls that delivery and every one queued behind it
    for tens of milliseconds; a background thread does it instead (``Queues``)."""

    def __init__(self, *args: Any, autocheckpoint: bool = True, **kwargs: Any) -> None:
        self._autocheckpoint = autocheckpoint  # read by the first connection, in super().__init__
        super().__init__(*args, **kwargs)

    def _create_connection(self) -> Any:
        conn = super()._create_connection()
        conn.execute("pragma synchronous=1")
        if not self._autocheckpoint:
            conn.execute("pragma wal_autocheckpoint=0")
        return conn


CHECKPOINT_EVERY_S = 0.5


def sqlite_storage(namespace: str, filename: str) -> BaseStorage:
    """One namespace of the SQLite queue file, opened as the workers open it."""
    return _Sqlite(namespace, filename=filename)


Handler = Callable[[str], None]  # a job id -> run it


def _refuse(job_id: str) -> None:
    raise RuntimeError(f"job {job_id}: this process enqueues jobs, it does not run them")


class Queues:
    """The `cpu` and `gpu` queues and the state store, on the backend the settings name."""

    def __init__(
        self, settings: AppSettings, *, handler: Handler = _refuse, serving: bool = False
    ) -> None:
        """``serving``: for the webhook server, whose answers must not wait on a checkpoint."""
        self.settings = settings
        self._storage_kwargs = {"autocheckpoint": not serving}
        if settings.redis_url is None:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.hueys: dict[Queue, Huey] = {q: self._huey(f"gradgate_{q}") for q in Queue}

        def run(job_id: str) -> None:
            handler(job_id)

        # A message names its task by module and name, so every process registers this same
        # function of this module, whatever its handler; the queue names the kind of worker.
        self._tasks = {q: h.task(name=TASK)(run) for q, h in self.hueys.items()}
        self.state = State.open(self.storage)
        if serving and settings.redis_url is None:
            threading.Thread(target=self._checkpoints, daemon=True).start()

    def _huey(self, name: str) -> Huey:
        if self.settings.redis_url is not None:
            return RedisHuey(name, results=False, url=self.settings.redis_url)
        return Huey(
            name,
            results=False,
            storage_class=_Sqlite,
            filename=str(self.settings.queue_db),
            **self._storage_kwargs,
        )

    def storage(self, namespace: str) -> BaseStorage:
        if self.settings.redis_url is not None:
            return RedisStorage(namespace, url=self.settings.redis_url)
        return _Sqlite(namespace, filename=str(self.settings.queue_db), **self._storage_kwargs)

    def _checkpoints(self) -> None:
        """Copy the WAL into the database now and then, off the request path (PASSIVE: never
        waits for a reader or a writer)."""
        conn = sqlite3.connect(self.settings.queue_db, isolation_level=None, timeout=5)
        while self.settings.queue_db.exists():  # gone: a test's temporary directory
            time.sleep(CHECKPOINT_EVERY_S)
            try:
                conn.execute("pragma wal_checkpoint(PASSIVE)")
            except sqlite3.Error:
                continue  # busy or briefly unavailable: the next round catches up
        conn.close()

    def enqueue(self, job: Job) -> None:
        """Ledger first, then the message: a message whose job is not in the ledger is dropped,
        a ledger entry whose message was lost is found again by the reaper."""
        self.state.ledger.add(job)
        self._tasks[job.queue](job.id)

    def pending(self, queue: Queue) -> int:
        return int(self.hueys[queue].pending_count())

    def consumer(self, queue: Queue, *, workers: int) -> Consumer:
        """A huey consumer of one queue. Threads, not processes: each job's real work happens in
        child processes anyway, and `kill -9` of the worker must take nothing with it but
        them (they watch their parent). Poll at most every second when idle (SQLite)."""
        consumer: Consumer = self.hueys[queue].create_consumer(
            workers=workers, worker_type="thread", initial_delay=0.05, max_delay=1.0
        )
        return consumer


def describe(queues: Queues) -> dict[str, Any]:
    """What /health reports: the backend and each queue's length."""
    return {
        "backend": "redis" if queues.settings.redis_url else "sqlite",
        "queues": {str(q): queues.pending(q) for q in Queue},
        "checked_at": time.time(),
    }
