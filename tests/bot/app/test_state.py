"""The state that outlives processes, on both backends: one SQLite file, and a real Redis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gradgate.bot.app.jobs import Job, Kind, Left, PullRequest, from_json, to_json
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.settings import AppSettings
from gradgate.bot.app.state import APPROVALS_KEPT, DAY_S, KEEP_DAYS, State, run_lease


class Clock:
    def __init__(self) -> None:
        self.now = 1_000 * DAY_S + 10.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "redis"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AppSettings:
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        # A fresh logical database per test: nothing leaks between them.
        import redis

        redis.Redis.from_url(url).flushdb()
        return AppSettings(data_dir=tmp_path, redis_url=url)
    return AppSettings(data_dir=tmp_path)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def state(backend: AppSettings, clock: Clock) -> State:
    return State.open(Queues(backend).storage, clock=clock)


def job(job_id: str = "d1") -> Job:
    pr = PullRequest(repo="o/r", number=7, installation=1, clone_url="https://example.com/o/r.git")
    return Job(id=job_id, kind=Kind.PUSH, pr=pr, head_sha="a" * 40, base_ref="main", author="x")


def test_a_delivery_id_counts_once_across_days_until_it_is_pruned(
    state: State, clock: Clock
) -> None:
    assert not state.deliveries.seen("d1")
    assert state.deliveries.remember("d1")
    assert state.deliveries.seen("d1") and not state.deliveries.remember("d1")
    clock.now += DAY_S * (KEEP_DAYS - 1)
    assert state.deliveries.seen("d1")  # a redelivery two days later
    clock.now += DAY_S * 2
    state.deliveries.prune()
    assert not state.deliveries.seen("d1")  # long gone: GitHub never redelivers this late


def test_a_lease_is_exclusive_until_it_expires_then_another_may_take_it(
    state: State, clock: Clock
) -> None:
    leases = state.leases
    assert leases.acquire("publish:o/r#7", "worker-a", 30)
    assert not leases.acquire("publish:o/r#7", "worker-b", 30)
    assert leases.holder("publish:o/r#7") == "worker-a"
    clock.now += 31  # worker-a was killed with -9 and never released it
    assert leases.holder("publish:o/r#7") is None
    assert leases.acquire("publish:o/r#7", "worker-b", 30)
    assert not leases.renew("publish:o/r#7", "worker-a", 30)  # too late: it is b's now
    leases.release("publish:o/r#7", "worker-a")  # not a's to release
    assert leases.holder("publish:o/r#7") == "worker-b"


def test_a_renewed_lease_outlives_its_first_expiry(state: State, clock: Clock) -> None:
    assert state.leases.acquire("run:j", "a", 30)
    clock.now += 20
    assert state.leases.renew("run:j", "a", 30)
    clock.now += 20
    assert not state.leases.acquire("run:j", "b", 30)
    state.leases.release("run:j", "a")
    assert state.leases.acquire("run:j", "b", 30)


def test_orphans_are_ledger_jobs_whose_worker_stopped_renewing(state: State, clock: Clock) -> None:
    for name in ("running", "dead", "queued", "finished"):
        state.ledger.add(job(name))
    state.ledger.done("finished")
    assert state.leases.acquire(run_lease("running"), "w1", 60)
    assert state.leases.acquire(run_lease("dead"), "w2", 10)
    assert state.ledger.orphans(state.leases, grace_s=30, queued_s=600) == []  # too recent
    clock.now += 31  # w2 was killed: its lease lapsed; w1 keeps renewing; "queued" waits
    state.leases.renew(run_lease("running"), "w1", 60)
    orphans = state.ledger.orphans(state.leases, grace_s=30, queued_s=600)
    assert [j.id for j in orphans] == ["dead"]
    assert state.ledger.get("dead") == job("dead")
    assert state.ledger.get("finished") is None

    state.leases.clear_lapsed(run_lease("dead"))  # enqueued again: it counts as not started
    assert state.ledger.orphans(state.leases, grace_s=30, queued_s=600) == []
    clock.now += 600  # a message lost on its way to a worker is sent again, after a long wait
    state.leases.renew(run_lease("running"), "w1", 60)
    orphans = state.ledger.orphans(state.leases, grace_s=30, queued_s=600)
    assert sorted(j.id for j in orphans) == ["dead", "queued"]


def test_pr_heads_and_approvals(state: State) -> None:
    assert state.prs.head("o/r#7") is None
    state.prs.set_head("o/r#7", "b" * 40)
    state.prs.approve("o/r#7", "b" * 40)
    assert (state.prs.head("o/r#7"), state.prs.approved("o/r#7")) == ("b" * 40, ("b" * 40,))


def test_each_approval_holds_for_its_head_whatever_is_approved_after(state: State) -> None:
    a, b = "a" * 40, "b" * 40
    state.prs._kv.put_data("ok:o/r#7", a.encode())  # one SHA, as an older App stored it
    assert state.prs.approved("o/r#7") == (a,)
    state.prs.approve("o/r#7", b)
    state.prs.approve("o/r#7", a)  # approved again: once, now the newest
    assert state.prs.approved("o/r#7") == (b, a)
    for n in range(APPROVALS_KEPT):
        state.prs.approve("o/r#7", f"{n:040x}")
    kept = state.prs.approved("o/r#7")  # the newest APPROVALS_KEPT: the oldest went first
    assert len(kept) == APPROVALS_KEPT and a not in kept and b not in kept


def test_the_server_copies_the_wal_into_the_database_in_the_background(tmp_path: Path) -> None:
    """A delivery's commit never pays for a checkpoint; a thread does them, so the WAL does not
    grow without end."""
    import sqlite3
    import time

    queues = Queues(AppSettings(data_dir=tmp_path), serving=True)
    conn = queues.state.ledger._kv.conn
    assert conn.execute("pragma wal_autocheckpoint").fetchone()[0] == 0
    before = queues.settings.queue_db.stat().st_size
    for n in range(300):
        queues.enqueue(job(f"d{n}"))
    deadline = time.monotonic() + 60  # a loaded machine checkpoints late
    while queues.settings.queue_db.stat().st_size == before:
        assert time.monotonic() < deadline, "nothing was checkpointed"
        time.sleep(0.05)
    with sqlite3.connect(queues.settings.queue_db) as check:
        assert (
            check.execute("select count(*) from kv where queue = 'gradgate_jobs'").fetchone()[0]
            == 300
        )


def test_a_gpu_half_keeps_what_the_cpu_half_left_in_progress_across_a_restart(
    backend: AppSettings,
) -> None:
    """The GPU half completes, or concludes as superseded, the very check runs the CPU half left
    in progress: their ids travel in the job, through the store, to whichever worker runs it."""
    checks = Left(check_runs=(("gradgate", 11), ("gradgate/checkpoint", 12)), running=("gradgate",))
    statuses = Left(check_runs=None, running=("gradgate", "gradgate/checkpoint"))
    for left in (checks, statuses):
        half = job().gpu_half(
            base_sha="b" * 40, head_sha="a" * 40, only=("checkpoint",), carried="{}", left=left
        )
        State.open(Queues(backend).storage).ledger.add(half)

        again = State.open(Queues(backend).storage).ledger.get(half.id)  # a fresh process

        assert again == half and again.left == left


def test_a_job_stored_before_jobs_carried_what_was_left_still_loads() -> None:
    stored = json.loads(to_json(job()))
    del stored["left"]

    assert from_json(json.dumps(stored)) == job()
