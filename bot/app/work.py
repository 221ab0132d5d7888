"""One job in a worker: claim it, fetch, run the pipeline without credentials, publish.

    claim      the job's run lease (a job runs in one place at a time); gone from the ledger:
               it was done already (a duplicate message)
    decide     a comment: its command and who gave it; a push: whether the author is trusted
    fetch      the mirror, refs/pull/N/head and the base, with the installation token
    run        `gradgate.bot.app.runner` in a child started without credentials, on a worktree
    publish    under the PR's publish lease, so two jobs never write the same PR at once
    follow-up  checks that need a GPU: the GPU half, enqueued on the `gpu` queue

While a job runs, a heartbeat renews its lease and watches the PR's newest head: a push makes
the job stop (its runner is killed) and publish nothing; the newer job reports.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from gradgate.bot.app import logs
from gradgate.bot.app.combine import from_wire, merge, to_rerun, to_wire
from gradgate.bot.app.commands import Command, commands
from gradgate.bot.app.forge import Forge
from gradgate.bot.app.jobs import Job, Kind, PullRequest
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.runner import RunnerRequest, request_json, runner_env
from gradgate.bot.app.state import owner_id, publish_lease, run_lease
from gradgate.bot.app.trust import Gpu, approval_head, may_run_code, message
from gradgate.bot.git.mirror import Mirrors
from gradgate.bot.pipeline import Request, error_report
from gradgate.bot.report.render import Report
from gradgate.checks.base import Outcome
from gradgate.checks.errors import GradgateError


class Superseded(Exception):
    """A newer head arrived for the PR: this job's results would be stale."""


@dataclass(frozen=True, slots=True)
class Run:
    """What one run of the pipeline judges and how."""

    head_sha: str
    base: str  # the base branch's name (fetched) or, for a GPU half, the CPU half's base SHA
    user_code: bool
    only: tuple[str, ...] | None = None
    earlier: Report | None = None  # merge the fresh results into this one


class Worker:
    def __init__(
        self,
        queues: Queues,
        forge: Forge,
        *,
        gpu: Gpu = Gpu.RUN,
        auto_to_gpu: bool = False,
        runner: list[str] | None = None,
    ) -> None:
        self.queues = queues
        self.state = queues.state
        self.forge = forge
        self.gpu = gpu
        self.auto_to_gpu = auto_to_gpu
        self.mirrors = Mirrors(queues.settings.data_dir, budget_mb=queues.settings.mirror_budget_mb)
        self.runner = runner or [sys.executable, "-m", "gradgate.bot.app.runner"]
        self.log = logs.get()
        self.ttl = queues.settings.lease_s
        self.running: set[str] = set()

    # -- the huey task -------------------------------------------------------------------------

    def __call__(self, job_id: str) -> None:
        job = self.state.ledger.get(job_id)
        if job is None:
            return  # done already: a duplicate message
        owner = owner_id()
        lease = run_lease(job_id)
        if not self.state.leases.acquire(lease, owner, self.ttl):
            return  # another worker runs it
        extra = {"job": job.id, "repo": job.pr.repo, "pr": job.pr.number, "head": job.head_sha}
        self.running.add(job_id)
        started = time.monotonic()
        try:
            with self._heartbeat(job, lease, owner) as cancelled:
                self._handle(job, cancelled)
            self.log.info("job done", extra=extra | _ms(started))
        except Superseded:
            self.log.info("job superseded by a newer push", extra=extra | _ms(started))
        except Exception as exc:
            self.log.exception("job failed: %s", exc, extra=extra | _ms(started))
            self._publish_error(job, f"{type(exc).__name__}: {exc}")
        finally:
            self.state.ledger.done(job_id)
            self.state.leases.release(lease, owner)
            self.running.discard(job_id)
            self.mirrors.trim()

    @contextmanager
    def _heartbeat(self, job: Job, lease: str, owner: str) -> Iterator[threading.Event]:
        cancelled, stop = threading.Event(), threading.Event()

        def beat() -> None:
            while not stop.wait(self.ttl / 3):
                self.state.leases.renew(lease, owner, self.ttl)
                if self._superseded(job):
                    cancelled.set()

        thread = threading.Thread(target=beat, daemon=True)
        thread.start()
        try:
            yield cancelled
        finally:
            stop.set()
            thread.join()

    def _superseded(self, job: Job) -> bool:
        newest = self.state.prs.head(job.pr.key)
        return job.head_sha is not None and newest is not None and newest != job.head_sha

    # -- deciding ------------------------------------------------------------------------------

    def _handle(self, job: Job, cancelled: threading.Event) -> None:
        if self._superseded(job):
            raise Superseded
        if job.kind is Kind.COMMENT:
            run = self._command(job)
            if run is None:
                return
            job = replace(job, head_sha=run.head_sha)
        elif job.kind is Kind.GPU:
            assert job.head_sha and job.base_sha and job.carried
            run = Run(job.head_sha, job.base_sha, True, job.only, from_wire(job.carried))
        else:
            assert job.head_sha and job.base_ref and job.author
            trusted = may_run_code(
                author_can_write=self.forge.can_write(job.pr, job.author),
                approved_head=self.state.prs.approved(job.pr.key),
                head_sha=job.head_sha,
            )
            run = Run(job.head_sha, job.base_ref, trusted)
        self._run(job, run, cancelled)

    def _command(self, job: Job) -> Run | None:
        said = commands(job.body)
        if not said or job.sender is None or job.comment_id is None:
            return None
        pull = self.forge.pull(job.pr)
        allowed = self.forge.can_write(job.pr, job.sender)
        if Command.OK_TO_TEST in said:
            if not allowed:
                self.forge.reply(job.pr, message("ok-to-test-refused", sender=job.sender))
                return None
            approved = approval_head(seen=job.known_head, current=pull.head_sha)
            if approved is None:
                reply = message(
                    "ok-to-test-moved", sender=job.sender, seen=job.known_head, head=pull.head_sha
                )
                self.forge.reply(job.pr, reply)
                return None
            self.state.prs.approve(job.pr.key, approved)
            self.forge.acknowledge(job.pr, job.comment_id)
            return Run(pull.head_sha, pull.base_ref, True)
        # /recheck: the same rule as the Action: write access (the PR's author included).
        if not allowed:
            return None
        self.forge.acknowledge(job.pr, job.comment_id)
        trusted = may_run_code(
            author_can_write=self.forge.can_write(job.pr, pull.author),
            approved_head=self.state.prs.approved(job.pr.key),
            head_sha=pull.head_sha,
        )
        earlier = self._last_report(job.pr)
        if Command.RECHECK_ALL in said or earlier is None or earlier.head_sha != pull.head_sha:
            return Run(pull.head_sha, pull.base_ref, trusted)
        return Run(pull.head_sha, pull.base_ref, trusted, to_rerun(earlier) or None, earlier)

    def _last_report(self, pr: PullRequest) -> Report | None:
        raw = self.state.prs.report(pr.key)
        return from_wire(raw) if raw else None

    # -- running -------------------------------------------------------------------------------

    def _run(self, job: Job, run: Run, cancelled: threading.Event) -> None:
        pr = job.pr
        refs = [f"refs/pull/{pr.number}/head:refs/pull/{pr.number}/head"]
        if job.kind is not Kind.GPU:  # the GPU half's base is the merge base: in the head's past
            refs.append(f"refs/heads/{run.base}:refs/heads/{run.base}")
        token = self.forge.token(pr)
        with self.mirrors.checkout(
            pr.repo, pr.clone_url, refs, token=token, sha=run.head_sha, job=job.id
        ) as tree:
            request = RunnerRequest(
                repo_path=str(tree),
                base=run.base if job.kind is Kind.GPU else f"refs/heads/{run.base}",
                head=run.head_sha,
                pr_number=pr.number,
                only=run.only,
                user_code=run.user_code,
                gpu=self.gpu if job.kind is not Kind.GPU else Gpu.RUN,
                auto_to_gpu=self.auto_to_gpu,
            )
            report = self._spawn(request, cancelled)
        if run.earlier is not None and run.only is not None:
            report = merge(run.earlier, report, checks=run.only)
        waiting_gpu = self._deferred(report)
        self.publish(pr, report)
        if waiting_gpu and report.base_sha and report.head_sha:
            half = job.gpu_half(
                base_sha=report.base_sha,
                head_sha=report.head_sha,
                only=waiting_gpu,
                carried=to_wire(report),
            )
            self.queues.enqueue(half)

    def _deferred(self, report: Report) -> tuple[str, ...]:
        gpu_words = message("wait-gpu")
        return tuple(
            r.check
            for r in report.results
            if r.outcome is Outcome.WAITING and r.summary == gpu_words
        )

    def _spawn(self, request: RunnerRequest, cancelled: threading.Event) -> Report:
        """The runner, in its own session and environment; killed when the job is superseded."""
        child = subprocess.Popen(
            self.runner,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=runner_env(os.environ),
            start_new_session=True,
        )
        out: list[bytes] = []
        reader = threading.Thread(
            target=lambda: out.extend(child.communicate(request_json(request)))
        )
        reader.start()
        while reader.is_alive():
            reader.join(0.2)
            if cancelled.is_set():
                _stop(child)
                reader.join()
                raise Superseded
        stdout, stderr = out
        if child.returncode != 0:
            tail = stderr.decode("utf-8", "replace").strip()[-2000:]
            raise GradgateError(f"the check runner exited with {child.returncode}: {tail}")
        return from_wire(stdout)

    # -- publishing ----------------------------------------------------------------------------

    def publish(self, pr: PullRequest, report: Report) -> None:
        """Publish under the PR's lease, so concurrent jobs never race on its comment; a report
        for a head that is no longer the newest is not published (the newer job reports)."""
        owner, lease = owner_id(), publish_lease(pr.key)
        deadline = time.monotonic() + 10 * self.ttl
        while not self.state.leases.acquire(lease, owner, self.ttl):
            if time.monotonic() > deadline:
                raise GradgateError(f"could not get {pr.key}'s publish lock in time")
            time.sleep(0.05)
        try:
            newest = self.state.prs.head(pr.key)
            if newest is not None and report.head_sha not in (None, newest):
                raise Superseded
            self.forge.publish(pr, report)
            self.state.prs.set_report(pr.key, to_wire(report))
        finally:
            self.state.leases.release(lease, owner)

    def _publish_error(self, job: Job, error: str) -> None:
        base, head = job.base_ref or "", job.head_sha or ""
        request = Request(repo_path=Path("."), base=base, head=head, pr_number=job.pr.number)
        report = replace(error_report(request, error), head_sha=job.head_sha)
        try:
            self.publish(job.pr, report)
        except Exception as exc:  # the job is over either way; say so in the log
            self.log.error("could not publish the error: %s", exc, extra={"job": job.id})


def _stop(child: subprocess.Popen[bytes]) -> None:
    """TERM (the runner unwinds and its sandbox kills user code), then KILL the session."""
    for sig, wait_s in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            return
        try:
            child.wait(wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def _ms(started: float) -> dict[str, float]:
    return {"elapsed_ms": round((time.monotonic() - started) * 1000, 1)}


Reaper = Callable[[], None]


def reaper(queues: Queues, worker: Worker | None = None) -> Reaper:
    """One pass: enqueue orphaned jobs again, drop old delivery ids, remove dead jobs' dirs."""

    def reap() -> None:
        state = queues.state
        for job in state.ledger.orphans(state.leases, grace_s=queues.settings.lease_s):
            logs.get().warning("re-enqueueing a job whose worker stopped", extra={"job": job.id})
            queues.enqueue(job)
        state.deliveries.prune()
        if worker is not None:
            live = {
                e.job.id for e in state.ledger.entries() if state.leases.holder(run_lease(e.job.id))
            }
            worker.mirrors.sweep(live | worker.running)

    return reap
