"""What must outlive a process, in the queue's own store (SQLite file or Redis).

Built on huey's storage key/value API, so the same code runs on both backends; each concern is
its own namespace there:

    deliveries_<day>   delivery ids seen, in daily buckets (three days are kept)
    jobs               the job ledger: a job stays here from enqueue until a worker finishes it
    leases             named leases with an expiry: a running job, a PR's publish lock
    prs                each PR's newest head SHA, its heads with their push times, the heads
                       /ok-to-test approved, the comments whose commands were used, the PRs
                       each head SHA was recorded for (one verdict per commit, issue 34)

huey removes a task from its queue when a worker takes it, so a worker killed mid-job would
lose it; the ledger and the run leases are what make jobs survive that: a job whose lease has
expired is enqueued again (see ``Ledger.orphans``).
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gradgate.bot.app.jobs import Job, from_json, to_json
from huey.constants import EmptyData
from huey.storage import BaseStorage

Clock = Callable[[], float]
StorageFactory = Callable[[str], BaseStorage]  # namespace -> storage
DAY_S = 86_400
PUSHES_KEPT = 100
APPROVALS_KEPT = 100  # heads approved per PR, the newest kept
KEEP_DAYS = 3  # GitHub redelivers on request only; three days covers a weekend's retries


def _text(raw: object) -> str:
    return bytes(raw).decode("utf-8") if isinstance(raw, bytes | memoryview) else str(raw)


class Deliveries:
    """Each X-GitHub-Delivery id is processed once: ``remember`` it once its job is enqueued,
    and a redelivery is ``seen``."""

    def __init__(self, storage: StorageFactory, *, clock: Clock = time.time) -> None:
        self._storage = storage
        self._clock = clock
        self._buckets: dict[int, BaseStorage] = {}

    def _bucket(self, day: int) -> BaseStorage:
        if day not in self._buckets:
            self._buckets[day] = self._storage(f"gradgate_deliveries_{day}")
        return self._buckets[day]

    def seen(self, delivery: str) -> bool:
        today = int(self._clock() // DAY_S)
        return any(self._bucket(today - d).has_data_for_key(delivery) for d in range(KEEP_DAYS))

    def remember(self, delivery: str) -> bool:
        """Record ``delivery`` as processed; False when it already was."""
        return bool(self._bucket(int(self._clock() // DAY_S)).put_if_empty(delivery, b"1"))

    def prune(self) -> None:
        """Drop the buckets older than KEEP_DAYS (a week's worth past them, in case)."""
        today = int(self._clock() // DAY_S)
        for day in range(today - KEEP_DAYS - 7, today - KEEP_DAYS + 1):
            self._bucket(day).flush_results()
            self._buckets.pop(day, None)


@dataclass(frozen=True, slots=True)
class Entry:
    job: Job
    enqueued_at: float


class Ledger:
    """Jobs from enqueue until done; a job whose run lease lapsed is an orphan to enqueue again."""

    def __init__(self, storage: StorageFactory, *, clock: Clock = time.time) -> None:
        self._kv = storage("gradgate_jobs")
        self._clock = clock

    def add(self, job: Job) -> None:
        record = {"job": to_json(job), "enqueued_at": self._clock()}
        self._kv.put_data(job.id, json.dumps(record).encode("utf-8"))

    def get(self, job_id: str) -> Job | None:
        raw = self._kv.peek_data(job_id)
        return None if raw is EmptyData else from_json(json.loads(_text(raw))["job"])

    def done(self, job_id: str) -> None:
        self._kv.delete_data(job_id)

    def entries(self) -> Iterator[Entry]:
        for raw in self._kv.result_items().values():
            record = json.loads(_text(raw))
            yield Entry(from_json(record["job"]), float(record["enqueued_at"]))

    def orphans(self, leases: Leases, *, grace_s: float, queued_s: float) -> list[Job]:
        """Jobs to enqueue again: started by a worker whose run lease lapsed over ``grace_s``
        after they were enqueued (it died), or never started ``queued_s`` after (a message lost
        between a queue and a worker; a long wait, as a backlog also keeps jobs unstarted).
        Enqueueing one twice is harmless: a worker runs a job only while it holds the job's run
        lease and the job is still in the ledger."""
        now = self._clock()
        found = []
        for e in self.entries():
            lease = run_lease(e.job.id)
            age = now - e.enqueued_at
            died = leases.lapsed(lease) and age > grace_s
            if died or (leases.absent(lease) and age > queued_s):
                found.append(e.job)
        return found


def run_lease(job_id: str) -> str:
    return f"run:{job_id}"


def publish_lease(pr_key: str) -> str:
    return f"publish:{pr_key}"


def owner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{time.monotonic_ns()}"


class Leases:
    """Named locks that expire, so one held by a worker killed with -9 frees itself.

    Acquire is atomic (put-if-empty). Taking over an expired lease pops it and checks that what
    was popped is the expired value it read; only a lease renewed in the microseconds between
    the read and the pop could be taken by two owners, and that needs a holder that was already
    late by its whole TTL.
    """

    def __init__(self, storage: StorageFactory, *, clock: Clock = time.time) -> None:
        self._kv = storage("gradgate_leases")
        self._clock = clock

    def _read(self, name: str) -> tuple[str, float] | None:
        raw = self._kv.peek_data(name)
        if raw is EmptyData:
            return None
        owner, _, expires = _text(raw).rpartition(" ")
        return owner, float(expires)

    def holder(self, name: str) -> str | None:
        held = self._read(name)
        return held[0] if held and held[1] > self._clock() else None

    def lapsed(self, name: str) -> bool:
        """Taken once and not released: its owner stopped renewing it (killed, say)."""
        held = self._read(name)
        return held is not None and held[1] <= self._clock()

    def absent(self, name: str) -> bool:
        return self._read(name) is None

    def clear_lapsed(self, name: str) -> None:
        """Remove a lapsed lease (its job is enqueued again: it counts as not started)."""
        popped = self._kv.pop_data(name)
        if popped is not EmptyData and not self._expired(popped):
            self._kv.put_data(name, popped)  # taken over since we looked: leave it

    def acquire(self, name: str, owner: str, ttl_s: float) -> bool:
        value = f"{owner} {self._clock() + ttl_s}".encode()
        if self._kv.put_if_empty(name, value):
            return True
        held = self._kv.peek_data(name)
        if held is not EmptyData and not self._expired(held):
            return False
        popped = self._kv.pop_data(name)
        if popped is not EmptyData and (held is EmptyData or bytes(popped) != bytes(held)):
            self._kv.put_data(name, popped)  # a fresh lease, taken since we looked: not ours
            return False
        return bool(self._kv.put_if_empty(name, value))

    def _expired(self, raw: object) -> bool:
        return float(_text(raw).rpartition(" ")[2]) <= self._clock()

    def renew(self, name: str, owner: str, ttl_s: float) -> bool:
        """Extend a lease this owner holds; False when it lapsed and someone else took it."""
        held = self._read(name)
        if held is None or held[0] != owner:
            return False
        self._kv.put_data(name, f"{owner} {self._clock() + ttl_s}".encode())
        return True

    def release(self, name: str, owner: str) -> None:
        held = self._read(name)
        if held is not None and held[0] == owner:
            self._kv.delete_data(name)


class PullRequests:
    """Per PR: the newest head SHA gradgate was told of, the heads /ok-to-test approved, and
    the last report published."""

    def __init__(self, storage: StorageFactory) -> None:
        self._kv = storage("gradgate_prs")

    def _get(self, key: str) -> str | None:
        raw = self._kv.peek_data(key)
        return None if raw is EmptyData else _text(raw)

    def head(self, pr_key: str) -> str | None:
        return self._get(f"head:{pr_key}")

    def set_head(self, pr_key: str, sha: str) -> None:
        self._kv.put_data(f"head:{pr_key}", sha.encode())

    def approved(self, pr_key: str) -> tuple[str, ...]:
        """The heads approved to run, oldest first. Each approval holds for its commit: another
        one (`/ok-to-test <sha>` naming a commit that is not the head) does not end it."""
        raw = self._get(f"ok:{pr_key}")
        if raw is None:
            return ()
        if not raw.startswith("["):  # one SHA, as stored before approvals were kept per head
            return (raw,)
        return tuple(str(sha) for sha in json.loads(raw))

    def approve(self, pr_key: str, sha: str) -> None:
        kept = [s for s in self.approved(pr_key) if s != sha] + [sha]
        self._kv.put_data(f"ok:{pr_key}", json.dumps(kept[-APPROVALS_KEPT:]).encode())

    def record_push(self, pr_key: str, repo: str, number: int, sha: str, at: float) -> None:
        """A head the PR got, and when (GitHub's clock): what an /ok-to-test binds to. The
        last PUSHES_KEPT are kept. Also which PR ``sha`` heads, for a fork's Re-run button."""
        kept = [*self.pushes(pr_key), (sha, at)][-PUSHES_KEPT:]
        self._kv.put_data(f"pushes:{pr_key}", json.dumps(kept).encode())
        self._kv.put_data(f"pr-of:{repo}@{sha}", str(number).encode())
        self.add_pr_of_head(repo, sha, number)

    def pushes(self, pr_key: str) -> list[tuple[str, float]]:
        raw = self._get(f"pushes:{pr_key}")
        return [(str(sha), float(at)) for sha, at in json.loads(raw)] if raw else []

    def pr_of_head(self, repo: str, sha: str) -> int | None:
        raw = self._get(f"pr-of:{repo}@{sha}")
        return int(raw) if raw else None

    def prs_of_head(self, repo: str, sha: str) -> tuple[int, ...]:
        """Every PR ``sha`` was recorded as the head of, open or not (the API says which are)."""
        raw = self._get(f"prs-of:{repo}@{sha}")
        return tuple(int(n) for n in json.loads(raw)) if raw else ()

    def add_pr_of_head(self, repo: str, sha: str, number: int) -> None:
        """Record that ``sha`` is (or was) ``number``'s head. Read, then written: the server
        records under its lock, and each worker adds its own PR again when it publishes."""
        known = self.prs_of_head(repo, sha)
        if number not in known:
            kept = json.dumps([*known, number][-PUSHES_KEPT:])
            self._kv.put_data(f"prs-of:{repo}@{sha}", kept.encode())

    def comment_used(self, repo: str, comment_id: int) -> bool:
        """A comment's commands count once, whatever delivery id carries it (a replay)."""
        return self._get(f"comment:{repo}:{comment_id}") is not None

    def use_comment(self, repo: str, comment_id: int) -> bool:
        """Mark the comment as used; False when it already was."""
        return bool(self._kv.put_if_empty(f"comment:{repo}:{comment_id}", b"1"))

    def report(self, pr_key: str) -> str | None:
        """The last report published for the PR (wire JSON): what `/recheck` re-runs."""
        return self._get(f"report:{pr_key}")

    def set_report(self, pr_key: str, wire: str) -> None:
        self._kv.put_data(f"report:{pr_key}", wire.encode())


@dataclass(frozen=True)
class State:
    deliveries: Deliveries
    ledger: Ledger
    leases: Leases
    prs: PullRequests

    @classmethod
    def open(cls, storage: StorageFactory, *, clock: Clock = time.time) -> State:
        return cls(
            Deliveries(storage, clock=clock),
            Ledger(storage, clock=clock),
            Leases(storage, clock=clock),
            PullRequests(storage),
        )
