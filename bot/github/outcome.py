"""The run's outcome on the commit: check runs where the token allows, else commit statuses.

A check run needs `checks: write`; GitHub answers 403 without it, and gradgate then reports the
same names as statuses. The pending phase decides the way for its run, so the final phase
completes the very check runs it started, or replaces the very statuses it set: nothing is left
pending. When the final phase cannot finish its check runs, it still tries to leave statuses.
When a newer push supersedes the run before its final phase, ``post_superseded`` concludes what
the pending phase left running on the old head, so no check spins there forever. The final phase
may itself leave checks in progress (waiting for a GPU worker); it returns them as a ``Pending``,
which the run that completes them takes up in the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gradgate.bot.github.checkruns import (
    final_check_runs,
    pending_check_runs,
    superseded_check_runs,
)
from gradgate.bot.github.commit import Origin
from gradgate.bot.github.ports import GitHubPort
from gradgate.bot.github.statuses import (
    final_statuses,
    pending_statuses,
    superseded_statuses,
    unpublished_statuses,
)
from gradgate.bot.plan.plan import Plan
from gradgate.bot.report.render import Report, status_descriptions
from gradgate.checks.errors import GitHubError

FORBIDDEN = 403  # GitHub's "Resource not accessible by integration": no `checks: write`


@dataclass(frozen=True, slots=True)
class Pending:
    """How the pending phase reported: check run ids by name, or statuses (``check_runs`` None)."""

    check_runs: Mapping[str, int] | None = field(default_factory=dict)
    error: GitHubError | None = None  # the pending phase failed here; the final phase goes on
    running: tuple[str, ...] = ()  # the names it marked in progress (a skipped check is done)


def post_pending(
    port: GitHubPort,
    plan: Plan,
    *,
    head_sha: str,
    base_sha: str,
    config_hash: str | None,
    details_url: str | None,
) -> Pending:
    ids: dict[str, int] = {}
    running: list[str] = []
    runs = pending_check_runs(
        plan, head_sha=head_sha, base_sha=base_sha, config_hash=config_hash, details_url=details_url
    )
    try:
        for run in runs:
            ids[run.name] = port.create_check_run(head_sha, run)
            if run.conclusion is None:
                running.append(run.name)
        return Pending(ids, running=tuple(running))
    except GitHubError as exc:
        if exc.status != FORBIDDEN or ids:
            return Pending(ids, error=exc, running=tuple(running))
    try:
        for status in pending_statuses(
            plan, base_sha=base_sha, config_hash=config_hash, target_url=details_url
        ):
            if status.state == "pending":  # counted before it is sent: a lost answer set it too
                running.append(status.context)
            port.set_status(head_sha, status)
    except GitHubError as exc:
        return Pending(None, error=exc, running=tuple(running))
    return Pending(None, running=tuple(running))


def post_final(
    port: GitHubPort,
    report: Report,
    *,
    details_url: str | None,
    pending: Pending | None = None,
    origin: Origin | None = None,
) -> Pending:
    """Check runs (completing the pending ones), or statuses if the token cannot write checks.
    What it left in progress (checks waiting for a GPU worker), as a ``Pending`` that the run
    completing them (or concluding them as superseded) takes up. ``origin``: the pull request
    ``report`` is, on a head that several share (``commit``)."""
    head_sha = report.head_sha
    if head_sha is None:
        raise ValueError("a report published to GitHub names the head it was computed for")
    started = pending.check_runs if pending is not None else {}
    if started is not None:
        ids = dict(started)
        running: list[str] = []
        done = 0
        try:
            for run in final_check_runs(report, details_url=details_url, origin=origin):
                run_id = started.get(run.name)
                if run_id is None:
                    ids[run.name] = port.create_check_run(head_sha, run)
                else:
                    port.update_check_run(run_id, run)
                if run.conclusion is None:
                    running.append(run.name)
                done += 1
            return Pending(ids, running=tuple(running))
        except GitHubError as exc:
            if exc.status != FORBIDDEN or done or started:
                _errors_anyway(port, report, [*ids, *(pending.running if pending else ())])
                raise
    contexts: list[str] = []
    for status in final_statuses(report, target_url=details_url, origin=origin):
        if status.state == "pending":  # counted before it is sent: a lost answer set it too
            contexts.append(status.context)
        port.set_status(head_sha, status)
    return Pending(None, running=tuple(contexts))


def post_superseded(
    port: GitHubPort,
    pending: Pending,
    *,
    head_sha: str,
    newer_head: str,
    details_url: str | None,
) -> None:
    """Conclude what ``pending`` left running on ``head_sha``, which ``newer_head`` replaced:
    check runs `cancelled`, statuses `error`, each saying which push; never a pass. Each is
    tried; the first failure is raised after."""
    failed: GitHubError | None = None
    if pending.check_runs is not None:
        started = pending.check_runs
        names = [name for name in pending.running if name in started]
        for run in superseded_check_runs(
            names, head_sha=head_sha, newer_head=newer_head, details_url=details_url
        ):
            try:
                port.update_check_run(started[run.name], run)
            except GitHubError as exc:
                failed = failed or exc
    else:
        for status in superseded_statuses(
            pending.running, newer_head=newer_head, target_url=details_url
        ):
            try:
                port.set_status(head_sha, status)
            except GitHubError as exc:
                failed = failed or exc
    if failed is not None:
        raise failed


def _errors_anyway(port: GitHubPort, report: Report, names: Sequence[str]) -> None:
    """Best effort when check runs failed halfway: a status per name says error (never the
    report's verdict: a `success` status beside a check run that could not be completed would
    disagree with it), so a required check named either way does not pass."""
    assert report.head_sha is not None
    contexts = dict.fromkeys([*status_descriptions(report), *names])
    try:
        for status in unpublished_statuses(list(contexts), target_url=None):
            port.set_status(report.head_sha, status)
    except GitHubError:
        pass  # the check runs' error is the one to report
