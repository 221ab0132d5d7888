"""A `/recheck` comment -> 👀 and a re-run of the checks workflow, or one polite reply.

Runs in the `issue_comment` context, which holds a write token: it never checks out or runs the
PR's code. It re-runs, through the Actions API, the latest `pull_request` run of the checks
workflow for the PR's current head: its failed jobs for `/recheck`, all of it for `/recheck all`.
Someone without write access gets one reply per pull request saying who may re-run.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gradgate.bot.github.commands import Command, CommentEvent, Ignored, may_recheck, screen
from gradgate.bot.github.ports import GitHubPort
from gradgate.bot.templates import render_template


class Outcome(StrEnum):
    IGNORED = "ignored"
    REFUSED = "refused"  # replied (once) that only people with write access may re-run
    RERUN = "rerun"
    NO_RUN = "no-run"
    RUNNING = "running"
    NOTHING_FAILED = "nothing-failed"


@dataclass(frozen=True, slots=True)
class Handled:
    outcome: Outcome
    ignored: Ignored | None = None
    run_id: int | None = None


def _marker(why: str, author: str) -> str:
    return f"<!-- gradgate:recheck {why} @{author} -->"


def handle_recheck(
    port: GitHubPort, event: CommentEvent, *, bot_login: str, workflow: str
) -> Handled:
    command = screen(event, bot_login=bot_login)
    if isinstance(command, Ignored):
        return Handled(Outcome.IGNORED, ignored=command)
    if not may_recheck(port.permission(event.author)):
        reply_once(port, event, "refused", bot_login=bot_login)
        return Handled(Outcome.REFUSED)
    port.react(event.number, event.comment_id, "eyes")
    pull = port.pull(event.number)
    run = port.latest_run(workflow, pull.head_sha)
    failed_only = command is Command.RECHECK
    if run is None:
        outcome = Outcome.NO_RUN
    elif run.status != "completed":
        outcome = Outcome.RUNNING
    elif failed_only and run.conclusion == "success":
        outcome = Outcome.NOTHING_FAILED
    else:
        port.rerun(run.id, failed_only=failed_only)
        return Handled(Outcome.RERUN, run_id=run.id)
    reply(port, event, str(outcome), head_sha=pull.head_sha)
    return Handled(outcome)


def reply_once(
    port: GitHubPort, event: CommentEvent, why: str, *, bot_login: str, **values: str
) -> None:
    """A reply ``why`` to the commenter, unless gradgate already gave them that one on this PR:
    asking again is not worth a second comment."""
    marker = _marker(why, event.author)
    if not any(
        c.author == bot_login and c.body.startswith(marker) for c in port.comments(event.number)
    ):
        reply(port, event, why, **values)


def reply(port: GitHubPort, event: CommentEvent, why: str, **values: str) -> None:
    """One reply (recheck_reply.md.j2); also the App's answers to `/ok-to-test`."""
    body = render_template(
        "recheck_reply.md.j2",
        marker=_marker(why, event.author),
        why=why,
        author=event.author,
        **({"head_sha": ""} | values),
    )
    port.create_comment(event.number, body)
