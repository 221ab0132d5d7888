"""What approves a fork's head on the trusted side (issue 17): an `/ok-to-test <sha>` comment, or
the `ok-to-test` label, each put there by someone with write access (asked of the API, like
`/recheck`). Anything else approves nothing here, and the gate publishes nothing for it.

  comment  `/ok-to-test <full SHA>` naming the PR's head: that commit
  label    `ok-to-test` (the App's label too) put on the PR: the head the `labeled` event
           carries (`pull_request.head.sha` when it was put on), and only while that is still
           the PR's head. A later push is not approved: the label stays on the PR, but it
           approved one commit; put it on again (or comment `/ok-to-test <sha>`) for the next.

Either approval is recorded on the approved commit by the publish job, as a `gradgate/ok-to-test`
status made with the trusted workflow's token (``approval_status``). A later gate of the same
commit (the fork's run re-run, or `/recheck`) reads it back (``recorded``): the label's event is
gone by then, and the approval holds for that commit until a push changes the head. Only the
trusted workflow's token makes it: a fork's own run has a read-only token, and a status by anyone
else (a writer's own token included) is not one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gradgate.bot.doors.action.settings import say
from gradgate.bot.github.approval import approved_shas
from gradgate.bot.github.commands import OK_TO_TEST_LABEL, WRITE_PERMISSIONS, CommentEvent
from gradgate.bot.github.events import LabelEvent
from gradgate.bot.github.identifiers import LOGIN
from gradgate.bot.github.ports import GitHubPort, PullRequest, Status
from gradgate.bot.templates import render_template
from gradgate.checks.errors import GitHubError

APPROVED = "gradgate/ok-to-test"  # the status an approval is recorded with, on its commit


@dataclass(frozen=True, slots=True)
class Found:
    """The PR and head the trusted side judges; ``approver``: who approved it (a label)."""

    pull: PullRequest
    head_sha: str
    approver: str | None = None


def for_comment(port: GitHubPort, event: CommentEvent, *, repo: str) -> Found | None:
    """An `/ok-to-test <sha>` comment that approves the PR's head, by someone with write
    access, on a fork's PR."""
    if event.action != "created" or not event.is_pull_request or event.author_type == "Bot":
        return None
    pull = port.pull(event.number)
    nothing = dict(head_sha=pull.head_sha)
    if pull.head_sha not in approved_shas(event.body):
        say("nothing-to-publish", **nothing, why="not-approval")
        return None
    if port.permission(event.author) not in WRITE_PERMISSIONS:
        say("nothing-to-publish", **nothing, why="not-trusted")
        return None
    if pull.head_repo == repo:
        say("nothing-to-publish", **nothing, why="same-repository")
        return None
    return Found(pull, pull.head_sha)


def for_label(port: GitHubPort, event: LabelEvent, *, repo: str) -> Found | None:
    """The `ok-to-test` label, put on a fork's PR by someone with write access, approves the
    head the event carries while it is still the PR's head."""
    nothing = dict(head_sha=event.head_sha)
    if event.label != OK_TO_TEST_LABEL:
        say("nothing-to-publish", **nothing, why="other-label")
        return None
    if event.sender_type == "Bot" or event.sender.endswith("[bot]"):
        say("nothing-to-publish", **nothing, why="not-trusted")
        return None
    if port.permission(event.sender) not in WRITE_PERMISSIONS:  # triage may label, too
        say("nothing-to-publish", **nothing, why="not-trusted")
        return None
    pull = port.pull(event.number)
    if pull.head_sha != event.head_sha:  # pushed since: the label approved the older head
        say("nothing-to-publish", **nothing, head_now=pull.head_sha, why="label-moved")
        return None
    if pull.head_repo == repo:
        say("nothing-to-publish", **nothing, why="same-repository")
        return None
    return Found(pull, event.head_sha, approver=event.sender)


def may_write(port: GitHubPort) -> Callable[[str], bool]:
    """Whether a login has write access, asked of the API once per login."""
    known: dict[str, bool] = {}

    def ask(login: str) -> bool:
        if login not in known:
            known[login] = port.permission(login) in WRITE_PERMISSIONS
        return known[login]

    return ask


def approval_status(by: str, *, label: bool) -> Status:
    """The record of ``by``'s approval, for the approved commit (the publish job sets it)."""
    words = render_template("action_approved.txt.j2", by=by, label=label).strip()
    return Status(APPROVED, "success", words)


def recorded(
    port: GitHubPort, head_sha: str, *, bot_login: str, may_write: Callable[[str], bool]
) -> str | None:
    """Who approved ``head_sha``, as the trusted workflow recorded it on the commit: a
    `gradgate/ok-to-test` status made with its token (``bot_login``), naming someone who still
    has write access. None when there is none, or when the statuses cannot be read."""
    try:
        listed = port.statuses(head_sha)
    except GitHubError as exc:  # a workflow from before `statuses: read`: the approval is lost
        say("approval-unread", head_sha=head_sha, error=str(exc))
        return None
    for status in listed:
        if (status.context, status.state, status.creator) != (APPROVED, "success", bot_login):
            continue
        by = status.description.split(" ", 1)[0]  # action_approved.txt.j2 names them first
        if LOGIN.fullmatch(by) and not by.endswith("[bot]") and may_write(by):
            return by
    return None
