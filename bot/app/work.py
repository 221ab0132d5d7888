"""One job in a worker: claim it, decide, fetch, run the pipeline without credentials, publish.

    claim      the job's run lease (a job runs in one place at a time); gone from the ledger:
               it was done already (a duplicate message)
    decide     ``decide``: a push, a comment's command, or the GPU half -> what to run
    fetch      the mirror, refs/pull/N/head and the base, with a read-only installation token
    run        ``runner.spawn``: the pipeline in a child started without credentials, on a
               worktree; its plan marks the checks in progress on GitHub while they run
    publish    under the PR's publish lease, so two jobs never write the same PR at once
    follow-up  checks that need a GPU: the GPU half, enqueued on the `gpu` queue

While a job runs, a heartbeat renews its leases and watches the PR's newest head: a push makes
the job stop (its runner is killed) and publish no report; the newer job reports. What the job
had already marked in progress on its own head is concluded there as superseded (``marks``),
and a job that learns of the push before its plan marks nothing. The GPU half marks nothing of
its own: the CPU half's report left its checks in progress, and the job carries their ids
(``Left``), so the GPU half completes those very check runs or, superseded (even before it
starts), concludes them on the old head.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path
from typing import Any

from gradgate.bot.app import heads, logs
from gradgate.bot.app.combine import merge, to_wire
from gradgate.bot.app.decide import Run, decide
from gradgate.bot.app.forge import Forge
from gradgate.bot.app.heartbeat import Heartbeat
from gradgate.bot.app.jobs import Job, Kind, PullRequest
from gradgate.bot.app.marks import Marks, conclude_superseded, from_left, to_left
from gradgate.bot.app.policy import confirm_s
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.runner import Cancelled, RunnerRequest, spawn
from gradgate.bot.app.state import owner_id, publish_lease, run_lease
from gradgate.bot.app.strays import conclude_strays
from gradgate.bot.app.trust import Gpu, deferred_to_gpu
from gradgate.bot.git.mirror import Mirrors
from gradgate.bot.github.outcome import Pending
from gradgate.bot.github.publish import Target, publish_pending, publish_report
from gradgate.bot.pipeline import Request, error_report
from gradgate.bot.report.load import plan_from_json
from gradgate.bot.report.render import Report
from gradgate.checks.errors import GitHubError, GradgateError


class Superseded(Exception):
    """A newer head arrived for the PR: this job's results would be stale."""


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
        self.python = os.environ.get("GRADGATE_PYTHON") or None  # the runner does not inherit it
        self.log = logs.get()
        self.ttl = queues.settings.lease_s
        self.docs_url = queues.settings.docs_url  # the report's links to each check's page
        self.judging: dict[str, Job] = {}  # the jobs running here, as they are being judged

    # -- the huey task -------------------------------------------------------------------------

    def __call__(self, job_id: str) -> None:
        job = self.state.ledger.get(job_id)
        if job is None:
            return  # done already: a duplicate message
        # The heartbeat watches what the job judges: a comment's job learns its head later.
        beat = Heartbeat(
            self.state.leases, owner_id(), self.ttl, watch=lambda: self._stale(self.judging[job_id])
        )
        if not beat.hold(run_lease(job_id)):
            return  # another worker runs it
        self.judging[job_id] = job
        marks = Marks()
        extra = {"job": job.id, "repo": job.pr.repo, "pr": job.pr.number, "head": job.head_sha}
        started = time.monotonic()
        try:
            with beat:
                try:
                    self._handle(job, beat, marks)
                    self.log.info("job done", extra=extra | _ms(started))
                except (Superseded, Cancelled):
                    self.log.info("job superseded by a newer push", extra=extra | _ms(started))
                    self._supersede(self.judging[job_id], marks)  # its head, once known
                except Exception as exc:
                    self.log.exception("job failed: %s", exc, extra=extra | _ms(started))
                    self._publish_error(job, f"{type(exc).__name__}: {exc}", beat, marks)
        finally:
            self.state.ledger.done(job_id)
            beat.release_all()
            self.judging.pop(job_id, None)
            self.mirrors.trim()

    def _stale(self, job: Job, head_sha: str | None = None) -> bool:
        """Whether a newer head than the job's was pushed. The server records each push's head,
        but GitHub does not promise to deliver in order: before giving up, ask GitHub."""
        head_sha = head_sha or job.head_sha
        newest = self.state.prs.head(job.pr.key)
        if head_sha is None or newest is None or newest == head_sha:
            return False
        try:
            actual = self.forge.port(job.pr).pull(job.pr.number).head_sha
        except Exception:
            return True  # GitHub unreachable: the recorded push is the best knowledge
        if actual == head_sha:
            self.state.prs.set_head(job.pr.key, actual)  # an older push was delivered late
            return False
        return True

    # -- running -------------------------------------------------------------------------------

    def _handle(self, job: Job, beat: Heartbeat, marks: Marks) -> None:
        gone = job.head_sha if job.kind is Kind.CLOSED else job.before  # closed, or pushed over
        if gone is not None and (job.kind is Kind.CLOSED or gone != job.head_sha):
            self.weigh_again(job.pr, gone, beat)
        if job.kind is Kind.CLOSED:
            return
        if job.left is not None and job.head_sha is not None:
            # The GPU half takes over what the CPU half left in progress: it completes it, or
            # concludes it as superseded if a push stops it, even before it starts.
            left = from_left(job.left)
            marks.mark(job.head_sha, lambda: left)
        if self._stale(job):
            raise Superseded
        port = self.forge.port(job.pr)
        wait = confirm_s(self.mirrors, self.forge, job.pr)
        run = decide(job, port, self.state, bot_login=self.forge.bot_login, confirm_s=wait)
        if run is None:
            return
        job = self.judging[job.id] = replace(job, head_sha=run.head_sha)
        pr = job.pr
        refs = [f"refs/pull/{pr.number}/head:refs/pull/{pr.number}/head"]
        if job.kind is not Kind.GPU:  # the GPU half's base is the merge base: in the head's past
            refs.append(f"refs/heads/{run.base}:refs/heads/{run.base}")

        def on_plan(record: dict[str, Any]) -> None:
            if run.only is not None or job.kind is Kind.GPU:  # a partial run keeps the rest
                return
            if self._stale(job):  # pushed over already: mark nothing, and stop the runner
                beat.cancelled.set()
                return
            marks.mark(record["head_sha"], lambda: self._pending(pr, record))

        token = self.forge.fetch_token(pr)
        with self.mirrors.checkout(
            pr.repo, pr.clone_url, refs, token=token, sha=run.head_sha, job=job.id
        ) as tree:
            report = spawn(
                self.runner,
                self._request(job, run, tree),
                cancelled=beat.cancelled,
                on_plan=on_plan,
            )
        if run.earlier is not None and run.only is not None:
            report = merge(run.earlier, report, checks=run.only)
        left = self.publish(job, report, beat, pending=_pending(marks))
        waiting_gpu = deferred_to_gpu(report)
        if waiting_gpu and report.base_sha and report.head_sha:
            half = job.gpu_half(
                base_sha=report.base_sha,
                head_sha=report.head_sha,
                only=waiting_gpu,
                carried=to_wire(report),
                left=to_left(left),
                untrusted_head=run.untrusted_head,
            )
            self.queues.enqueue(half)

    def _request(self, job: Job, run: Run, tree: Path) -> RunnerRequest:
        return RunnerRequest(
            repo_path=str(tree),
            base=run.base if job.kind is Kind.GPU else f"refs/heads/{run.base}",
            head=run.head_sha,
            pr_number=job.pr.number,
            only=run.only,
            user_code=run.user_code,
            gpu=self.gpu if job.kind is not Kind.GPU else Gpu.RUN,
            auto_to_gpu=self.auto_to_gpu,
            python=self.python,
            untrusted_head=run.untrusted_head,
            **self._cache(),
        )

    def _cache(self) -> dict[str, str]:
        """Where the runner keeps the result cache: the queue's own store, which every worker
        shares (docs/caching.md); none with GRADGATE_NO_CACHE set."""
        settings = self.queues.settings
        if os.environ.get("GRADGATE_NO_CACHE"):
            return {}
        if settings.redis_url is not None:
            return {"cache_redis": settings.redis_url}
        return {"cache_db": str(settings.queue_db)}

    def _pending(self, pr: PullRequest, record: dict[str, Any]) -> Pending:
        """The checks in progress on GitHub while they run; a courtesy: a failure is logged."""
        try:
            return publish_pending(
                self.forge.port(pr),
                plan_from_json(record["plan"]),
                head_sha=record["head_sha"],
                base_sha=record["base_sha"],
                config_hash=record.get("config_hash"),
                target=Target(pr.number, self.forge.bot_login),
            )
        except Exception as exc:
            self.log.warning("could not mark the checks in progress: %s", exc)
            return Pending(None)

    def _supersede(self, job: Job, marks: Marks) -> None:
        """What the job marked in progress, concluded as superseded on a head no longer the PR's,
        and whatever else is left in progress there (``strays``: an earlier attempt's); a
        failure is logged (the newer job reports either way)."""
        made = marks.close()
        try:
            port = self.forge.port(job.pr)
            if made:
                conclude_superseded(port, made, target=Target(job.pr.number, self.forge.bot_login))
            newer = port.pull(job.pr.number).head_sha
        except Exception as exc:
            self.log.warning(
                "could not conclude the superseded checks: %s", exc, extra={"job": job.id}
            )
            return
        for head in {m.head_sha for m in made} | {job.head_sha or newer} - {newer}:
            self._sweep(job.pr, head, report=None, keep=(), newer=newer)

    def _sweep(
        self,
        pr: PullRequest,
        head_sha: str,
        *,
        report: Report | None,
        keep: Collection[int],
        newer: str,
    ) -> None:
        """Conclude the check runs left in progress on ``head_sha`` (``strays``); logged."""
        try:
            app = self.forge.bot_login.removesuffix("[bot]")
            port = self.forge.port(pr)
            conclude_strays(port, head_sha, app=app, keep=keep, report=report, newer_head=newer)
        except Exception as exc:
            self.log.warning("could not conclude the check runs left on %s: %s", head_sha, exc)

    # -- publishing ----------------------------------------------------------------------------

    def publish(
        self, job: Job, report: Report, beat: Heartbeat, *, pending: Pending | None = None
    ) -> Pending:
        """Publish under the PR's lease, so concurrent jobs never race on its comment, and the
        head's, so two PRs with one head publish on it in turn, each weighing the other's stored
        result (``commit``); a report for a head that is no longer the newest is not published
        (the newer job reports). What the report left in progress: the checks waiting for a
        GPU worker."""
        pr = job.pr
        leases = [publish_lease(pr.key)]
        if report.head_sha:
            leases.append(publish_lease(f"{pr.repo}@{report.head_sha}"))
        try:
            for lease in leases:
                self._hold(beat, lease, pr.key)
            if self._stale(job, report.head_sha):
                raise Superseded
            port, head, shown = self.forge.port(pr), report.head_sha or "", self._shown(pr)
            self.state.prs.add_pr_of_head(pr.repo, head, pr.number)
            others = heads.others(self.state, port, pr, head, shown=shown)
            try:
                waiting = heads.waiting(port, pr, head, others)
            except GitHubError as exc:  # as an unlisted rival: each PR's own job weighs again
                self.log.warning("could not list the open PRs of %s: %s", head, exc)
                waiting = []
            target = Target(pr.number, self.forge.bot_login)
            published = publish_report(
                port, shown(report), target, pending=pending, others=others, waiting=waiting
            )
            self.state.prs.set_report(pr.key, to_wire(report))
            kept = (published.left.check_runs or {}).values()
            on_commit = published.on_commit.report if published.on_commit else shown(report)
            current = on_commit if published.current else None
            self._sweep(pr, head, report=current, keep=kept, newer=published.head_now)
            return published.left
        finally:
            for lease in reversed(leases):
                beat.release(lease)

    def _hold(self, beat: Heartbeat, lease: str, what: str) -> None:
        deadline = time.monotonic() + 10 * self.ttl
        while not beat.hold(lease):
            if time.monotonic() > deadline:
                raise GradgateError(f"could not get {what}'s publish lock in time")
            time.sleep(0.05)

    def _shown(self, pr: PullRequest) -> heads.Shown:
        """A report as the PR shows it: its links, the re-run words for a PR."""
        return lambda r: replace(r, rerun="pr", repo_url=pr.web_url, docs_url=self.docs_url)

    def weigh_again(self, pr: PullRequest, head_sha: str, beat: Heartbeat) -> None:
        """``pr`` stops counting on ``head_sha``: ``heads.recount`` under the head's publish
        lease. A failure is logged: that head keeps what it shows, never turned to a pass."""
        lease = publish_lease(f"{pr.repo}@{head_sha}")
        try:
            self._hold(beat, lease, head_sha)
            top = heads.recount(
                self.state, self.forge.port(pr), pr, head_sha, shown=self._shown(pr)
            )
            if top is not None:
                self.log.info("head weighed again", extra={"head": head_sha, "pr": top.number})
        except Exception as exc:
            self.log.warning("could not weigh %s again: %s", head_sha, exc)
        finally:
            beat.release(lease)

    def _publish_error(self, job: Job, error: str, beat: Heartbeat, marks: Marks) -> None:
        base, head = job.base_ref or "", job.head_sha or ""
        request = Request(repo_path=Path("."), base=base, head=head, pr_number=job.pr.number)
        report = replace(error_report(request, error), head_sha=job.head_sha)
        if job.head_sha is None:
            return  # a comment that failed before it named a head: the log says why
        try:
            self.publish(job, report, beat, pending=_pending(marks))
        except Superseded:
            self._supersede(job, marks)
        except Exception as exc:  # the job is over either way; say so in the log
            self.log.error("could not publish the error: %s", exc, extra={"job": job.id})


def _pending(marks: Marks) -> Pending | None:
    """What the run marked in progress, for its report to complete; marking is over."""
    made = marks.close()
    return made[0].pending if made else None


def _ms(started: float) -> dict[str, float]:
    return {"elapsed_ms": round((time.monotonic() - started) * 1000, 1)}
