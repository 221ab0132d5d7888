"""What a job runs: a push by whom, a comment's command and its author's access (through the
port), a Re-run button, the `ok-to-test` label, the GPU half as the CPU half left it. ``None``:
nothing to run.

    push      every check; the PR's code only when its author may write or an approval named
              this very head
    comment   `/ok-to-test [<sha>]` (write access): approve the head ``approval`` binds it to,
              then run everything if that is the head now. `/recheck` (write access, as in the
              Action): re-run what failed, errored or waits; `/recheck all`: everything. Anyone
              else gets one reply.
    rerun     GitHub's Re-run button on a check run (as `/recheck`) or on the suite (as
              `/recheck all`), for the head it was pressed on, by someone with write access
    label     the `ok-to-test` label, put on by someone with write access: as
              `/ok-to-test <sha>` naming the head the label event carries
    gpu       the checks the CPU half left waiting for a GPU worker, on the same revisions
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gradgate.bot.app.approval import Approved, Refused, approve, head_at
from gradgate.bot.app.combine import from_wire, to_rerun
from gradgate.bot.app.jobs import Job, Kind
from gradgate.bot.app.state import State
from gradgate.bot.app.trust import may_run_code
from gradgate.bot.github.commands import (
    APP_COMMANDS,
    Command,
    CommentEvent,
    may_recheck,
    ok_to_test_sha,
    parse_command,
    screen,
)
from gradgate.bot.github.ports import GitHubPort, PullRequest
from gradgate.bot.github.recheck import reply, reply_once
from gradgate.bot.report.render import Report

ConfirmS = Callable[[str], float]  # the base branch -> its `trust.confirm_s`


@dataclass(frozen=True, slots=True)
class Run:
    """What one run of the pipeline judges and how."""

    head_sha: str
    base: str  # the base branch's name (fetched) or, for a GPU half, the CPU half's base SHA
    user_code: bool
    only: tuple[str, ...] | None = None
    earlier: Report | None = None  # merge the fresh results into this one
    # The PR's author may not write (a fork's PR): its code, once approved, runs only under
    # bubblewrap whatever the base's `sandbox:` says, and its own config is never adopted
    # (issue 17; the pipeline's ``untrusted_head``, as on the Action's trusted side).
    untrusted_head: bool = False


def decide(
    job: Job, port: GitHubPort, state: State, *, bot_login: str, confirm_s: ConfirmS
) -> Run | None:
    if job.kind is Kind.GPU:
        assert job.head_sha and job.base_sha and job.carried
        earlier = from_wire(job.carried)
        return Run(job.head_sha, job.base_sha, True, job.only, earlier, job.untrusted_head)
    if job.kind is Kind.COMMENT:
        return _command(job, port, state, bot_login=bot_login, confirm_s=confirm_s)
    if job.kind is Kind.RERUN:
        return _button(job, port, state)
    if job.kind is Kind.LABEL:
        return _label(job, port, state, confirm_s=confirm_s)
    assert job.head_sha and job.base_ref and job.author
    trusted, untrusted_head = _trust(port, state, job, author=job.author, head_sha=job.head_sha)
    return Run(job.head_sha, job.base_ref, trusted, untrusted_head=untrusted_head)


def _trust(
    port: GitHubPort, state: State, job: Job, *, author: str, head_sha: str
) -> tuple[bool, bool]:
    """Whether the head's code may run, and whether the head is untrusted (its author may not
    write: it runs only approved, and then under bubblewrap)."""
    can_write = may_recheck(port.permission(author))
    approved = state.prs.approved(job.pr.key)
    may_run = may_run_code(author_can_write=can_write, approved=approved, head_sha=head_sha)
    return may_run, not can_write


def _event(job: Job) -> CommentEvent:
    assert job.sender is not None
    return CommentEvent(
        action="created",  # the server passes on new comments on pull requests only
        number=job.pr.number,
        is_pull_request=True,
        comment_id=job.comment_id or 0,
        body=job.body,
        author=job.sender,
        author_type="User",  # ... and none by a bot; ``screen`` also knows gradgate's own login
    )


def _command(
    job: Job, port: GitHubPort, state: State, *, bot_login: str, confirm_s: ConfirmS
) -> Run | None:
    assert job.sender is not None and job.comment_id is not None
    event = _event(job)
    command = screen(event, bot_login=bot_login, accept=APP_COMMANDS)
    if not isinstance(command, Command):
        return None
    if not may_recheck(port.permission(job.sender)):
        why = "ok-to-test-refused" if command is Command.OK_TO_TEST else "refused"
        reply_once(port, event, why, bot_login=bot_login)
        return None
    pull = port.pull(job.pr.number)
    if command is Command.OK_TO_TEST:
        named = ok_to_test_sha(job.body)
        run = _approve(job, port, state, pull, event, named=named, confirm_s=confirm_s)
        if run is not None:
            port.react(job.pr.number, job.comment_id, "eyes")
        return run
    port.react(job.pr.number, job.comment_id, "eyes")
    return _recheck(job, port, state, pull, command)


def _approve(
    job: Job,
    port: GitHubPort,
    state: State,
    pull: PullRequest,
    event: CommentEvent,
    *,
    named: str | None,
    confirm_s: ConfirmS,
) -> Run | None:
    """Approve what the comment (or label) binds to; a run when that is the head now."""
    pushes = state.prs.pushes(job.pr.key)
    result = approve(
        named=named,
        written_at=job.at,
        pushes=pushes,
        current=pull.head_sha,
        confirm_s=0 if named is not None else confirm_s(pull.base_ref),
    )
    if result is Refused.MOVED:
        seen = head_at(pushes, job.at or 0.0)
        reply(port, event, str(result), seen=seen[0] if seen else "", head_sha=pull.head_sha)
        return None
    if isinstance(result, Refused):
        reply(port, event, str(result), head_sha=pull.head_sha)
        return None
    assert isinstance(result, Approved)
    state.prs.approve(job.pr.key, result.sha)
    if result.sha != pull.head_sha:
        reply(port, event, "ok-to-test-other", named=result.sha, head_sha=pull.head_sha)
        return None
    untrusted_head = not may_recheck(port.permission(pull.author))
    return Run(pull.head_sha, pull.base_ref, True, untrusted_head=untrusted_head)


def _recheck(job: Job, port: GitHubPort, state: State, pull: PullRequest, command: Command) -> Run:
    trusted, untrusted = _trust(port, state, job, author=pull.author, head_sha=pull.head_sha)
    raw = state.prs.report(job.pr.key)
    earlier = from_wire(raw) if raw else None
    if command is Command.RECHECK_ALL or earlier is None or earlier.head_sha != pull.head_sha:
        return Run(pull.head_sha, pull.base_ref, trusted, untrusted_head=untrusted)
    only = to_rerun(earlier) or None
    return Run(pull.head_sha, pull.base_ref, trusted, only, earlier, untrusted)


def _button(job: Job, port: GitHubPort, state: State) -> Run | None:
    """GitHub shows Re-run to people with write access; asked again all the same (a delivery
    is what GitHub signed, not who could see the button)."""
    assert job.sender is not None and job.head_sha is not None
    if not may_recheck(port.permission(job.sender)):
        return None
    pull = port.pull(job.pr.number)
    if pull.head_sha != job.head_sha:
        return None  # pressed on a head the PR no longer has: its newer head is reported
    command = parse_command(job.body) or Command.RECHECK
    return _recheck(job, port, state, pull, command)


def _label(job: Job, port: GitHubPort, state: State, *, confirm_s: ConfirmS) -> Run | None:
    assert job.sender is not None
    if not may_recheck(port.permission(job.sender)):
        return None  # only people with write access can label; a label event says who did
    pull = port.pull(job.pr.number)
    # Bound to the head the event carries (like `/ok-to-test <sha>`): a push after the label,
    # or a late delivery of an old label event, leaves the newer head waiting.
    return _approve(job, port, state, pull, _event(job), named=job.head_sha, confirm_s=confirm_s)
