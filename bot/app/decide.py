"""What a job runs: a push by whom, a comment's command and its author's access (through the
port), the GPU half as the CPU half left it. ``None``: nothing to run.

    push      every check; the PR's code only when its author may write or an `/ok-to-test`
              approved this very head
    comment   `/ok-to-test` (write access): approve the head the commenter could have seen,
              then run everything. `/recheck` (write access, as in the Action): re-run what
              failed, errored or waits; `/recheck all`: everything. Anyone else gets one reply.
    gpu       the checks the CPU half left waiting for a GPU worker, on the same revisions
"""

from __future__ import annotations

from dataclasses import dataclass

from gradgate.bot.app.combine import from_wire, to_rerun
from gradgate.bot.app.jobs import Job, Kind
from gradgate.bot.app.state import State
from gradgate.bot.app.trust import approval_head, may_run_code
from gradgate.bot.github.commands import APP_COMMANDS, Command, CommentEvent, may_recheck, screen
from gradgate.bot.github.ports import GitHubPort
from gradgate.bot.github.recheck import reply, reply_once
from gradgate.bot.report.render import Report


@dataclass(frozen=True, slots=True)
class Run:
    """What one run of the pipeline judges and how."""

    head_sha: str
    base: str  # the base branch's name (fetched) or, for a GPU half, the CPU half's base SHA
    user_code: bool
    only: tuple[str, ...] | None = None
    earlier: Report | None = None  # merge the fresh results into this one


def decide(job: Job, port: GitHubPort, state: State, *, bot_login: str) -> Run | None:
    if job.kind is Kind.GPU:
        assert job.head_sha and job.base_sha and job.carried
        return Run(job.head_sha, job.base_sha, True, job.only, from_wire(job.carried))
    if job.kind is Kind.COMMENT:
        return _command(job, port, state, bot_login=bot_login)
    assert job.head_sha and job.base_ref and job.author
    trusted = _trusted(port, state, job, author=job.author, head_sha=job.head_sha)
    return Run(job.head_sha, job.base_ref, trusted)


def _trusted(port: GitHubPort, state: State, job: Job, *, author: str, head_sha: str) -> bool:
    return may_run_code(
        author_can_write=may_recheck(port.permission(author)),
        approved_head=state.prs.approved(job.pr.key),
        head_sha=head_sha,
    )


def _command(job: Job, port: GitHubPort, state: State, *, bot_login: str) -> Run | None:
    assert job.sender is not None and job.comment_id is not None
    event = CommentEvent(
        action="created",  # the server passes on new comments on pull requests only
        number=job.pr.number,
        is_pull_request=True,
        comment_id=job.comment_id,
        body=job.body,
        author=job.sender,
        author_type="User",  # ... and none by a bot; ``screen`` also knows gradgate's own login
    )
    command = screen(event, bot_login=bot_login, accept=APP_COMMANDS)
    if not isinstance(command, Command):
        return None
    if not may_recheck(port.permission(job.sender)):
        why = "ok-to-test-refused" if command is Command.OK_TO_TEST else "refused"
        reply_once(port, event, why, bot_login=bot_login)
        return None
    pull = port.pull(job.pr.number)
    if command is Command.OK_TO_TEST:
        approved = approval_head(seen=job.known_head, current=pull.head_sha)
        if approved is None:
            reply(
                port, event, "ok-to-test-moved", seen=job.known_head or "", head_sha=pull.head_sha
            )
            return None
        port.react(job.pr.number, job.comment_id, "eyes")
        state.prs.approve(job.pr.key, approved)
        return Run(pull.head_sha, pull.base_ref, True)
    port.react(job.pr.number, job.comment_id, "eyes")
    trusted = _trusted(port, state, job, author=pull.author, head_sha=pull.head_sha)
    raw = state.prs.report(job.pr.key)
    earlier = from_wire(raw) if raw else None
    if command is Command.RECHECK_ALL or earlier is None or earlier.head_sha != pull.head_sha:
        return Run(pull.head_sha, pull.base_ref, trusted)
    return Run(pull.head_sha, pull.base_ref, trusted, to_rerun(earlier) or None, earlier)
