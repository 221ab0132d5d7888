"""What a delivery asks for: (event, payload) -> a Job, or the reason it is ignored (pure).

Only the fields gradgate needs are parsed (pydantic, unknown keys ignored), each by its format
(``bot.github.identifiers``: a SHA is 40 lowercase hex digits, a number a positive int, a login
and a repository GitHub's names), so nothing malformed reaches a report, a stamp or an API URL.
A handled event whose payload lacks them, or names no App installation, is malformed (the
server answers 400). The server does nothing slow: whether a command counts, and who may give
it, the worker decides.

    pull_request    opened, synchronize, reopened, ready_for_review, a new base: a run; labeled
                    with the `ok-to-test` label: an approval of the head it was labeled on;
                    closed: its head's verdict weighed again without it (issue 34)
    issue_comment   a new comment that may hold `/recheck` or `/ok-to-test`
    check_run       rerequested (GitHub's "Re-run" button): as `/recheck`
    check_suite     rerequested ("Re-run all checks"): as `/recheck all`
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gradgate.bot.app.jobs import Job, Kind, PullRequest
from gradgate.bot.github.commands import OK_TO_TEST_LABEL
from gradgate.bot.github.identifiers import BranchRef, Login, Number, RepoName, Sha
from pydantic import BaseModel, ConfigDict, ValidationError

# pull_request actions that change what the gate must judge. `edited` only when the base branch
# changed (a title edit changes nothing); `closed` only weighs its head again; the rest never
# start a run.
RUN_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
COMMANDS = ("/recheck", "/ok-to-test")
RERUN_EVENTS = frozenset({"check_run", "check_suite"})


class Malformed(ValueError):
    """A handled event whose payload is not the shape GitHub sends."""


@dataclass(frozen=True, slots=True)
class Ignored:
    reason: str


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _User(_Model):
    login: Login
    type: str = "User"


class _Repo(_Model):
    full_name: RepoName
    clone_url: str


class _Installation(_Model):
    id: Number


class _Head(_Model):
    ref: str  # the PR's branch in its own repository: never fetched by name, never shown
    sha: Sha


class _Base(_Model):
    ref: BranchRef  # fetched as refs/heads/<ref>
    sha: Sha


class _PullRequest(_Model):
    number: Number
    head: _Head
    base: _Base
    user: _User
    updated_at: datetime | None = None  # GitHub's clock: when this head (or the PR) changed


class _Label(_Model):
    name: str


class _PullRequestEvent(_Model):
    action: str
    pull_request: _PullRequest
    repository: _Repo
    installation: _Installation
    sender: _User | None = None
    label: _Label | None = None
    changes: dict[str, Any] | None = None
    before: Sha | None = None  # synchronize: the head the push replaced


class _Issue(_Model):
    number: Number
    pull_request: dict[str, Any] | None = None  # present only when the issue is a PR


class _Comment(_Model):
    id: Number
    body: str | None = None
    user: _User
    created_at: datetime | None = None


class _CommentEvent(_Model):
    action: str
    issue: _Issue
    comment: _Comment
    repository: _Repo
    installation: _Installation


class _PullRef(_Model):
    number: Number


class _Suite(_Model):
    head_sha: Sha
    pull_requests: tuple[_PullRef, ...] = ()


class _CheckRun(_Model):
    head_sha: Sha
    check_suite: _Suite


class _RerunEvent(_Model):
    action: str
    repository: _Repo
    installation: _Installation
    sender: _User
    check_run: _CheckRun | None = None
    check_suite: _Suite | None = None


PrOfHead = Callable[[str, str], int | None]  # (repo, head SHA) -> the PR it is the head of


def intake(
    event: str,
    delivery: str,
    payload: Mapping[str, Any],
    *,
    known_head: str | None = None,
    pr_of_head: PrOfHead | None = None,
) -> Job | Ignored:
    """The job a delivery starts. ``known_head``: the newest head the server has recorded for
    the PR a comment is on. ``pr_of_head``: the PR the server recorded a head for (GitHub lists
    no pull request in a fork's check suite)."""
    try:
        if event == "pull_request":
            return _pull_request(delivery, _PullRequestEvent.model_validate(payload))
        if event == "issue_comment":
            return _comment(delivery, _CommentEvent.model_validate(payload), known_head)
        if event in RERUN_EVENTS:
            return _rerun(event, delivery, _RerunEvent.model_validate(payload), pr_of_head)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "payload"
        raise Malformed(f"{event} payload: {where}: {first['msg']}") from None
    return Ignored(f"event {event!r} is not one gradgate acts on")


def pr_number(event: str, payload: Mapping[str, Any]) -> tuple[str, int] | None:
    """(repo, PR number) a comment delivery is about, to look up its known head; else None."""
    if event != "issue_comment":
        return None
    try:
        parsed = _CommentEvent.model_validate(payload)
    except ValidationError:
        return None
    return parsed.repository.full_name, parsed.issue.number


def _pr(repo: _Repo, installation: _Installation, number: int) -> PullRequest:
    return PullRequest(
        repo=repo.full_name, number=number, installation=installation.id, clone_url=repo.clone_url
    )


def _seconds(at: datetime | None) -> float | None:
    return at.timestamp() if at is not None and at.tzinfo is not None else None


def _pull_request(delivery: str, event: _PullRequestEvent) -> Job | Ignored:
    pr = event.pull_request
    if event.action == "labeled":
        if event.label is None or event.label.name != OK_TO_TEST_LABEL or event.sender is None:
            return Ignored("a label other than ok-to-test changes nothing gradgate judges")
        return Job(
            id=delivery,
            kind=Kind.LABEL,
            pr=_pr(event.repository, event.installation, pr.number),
            head_sha=pr.head.sha,
            base_ref=pr.base.ref,
            sender=event.sender.login,
            at=_seconds(pr.updated_at),  # when the label was put on
        )
    if event.action == "closed":
        return Job(
            id=delivery,
            kind=Kind.CLOSED,
            pr=_pr(event.repository, event.installation, pr.number),
            head_sha=pr.head.sha,
            base_ref=pr.base.ref,
        )
    base_changed = event.action == "edited" and bool(event.changes and "base" in event.changes)
    if event.action not in RUN_ACTIONS and not base_changed:
        return Ignored(f"pull_request {event.action!r} changes nothing gradgate judges")
    return Job(
        id=delivery,
        kind=Kind.PUSH,
        pr=_pr(event.repository, event.installation, pr.number),
        head_sha=pr.head.sha,
        base_ref=pr.base.ref,
        author=pr.user.login,
        at=_seconds(pr.updated_at),
        before=event.before if event.action == "synchronize" else None,
    )


def _comment(delivery: str, event: _CommentEvent, known_head: str | None) -> Job | Ignored:
    body = event.comment.body or ""
    if event.action != "created":
        return Ignored("only new comments carry commands (an edit never does)")
    if event.issue.pull_request is None:
        return Ignored("the comment is on an issue, not a pull request")
    if event.comment.user.type == "Bot":
        return Ignored("comments by bots are not commands")
    if not any(command in body for command in COMMANDS):
        return Ignored("the comment holds no gradgate command")
    return Job(
        id=delivery,
        kind=Kind.COMMENT,
        pr=_pr(event.repository, event.installation, event.issue.number),
        sender=event.comment.user.login,
        comment_id=event.comment.id,
        body=body,
        known_head=known_head,
        at=_seconds(event.comment.created_at),
    )


def _rerun(
    event: str, delivery: str, parsed: _RerunEvent, pr_of_head: PrOfHead | None
) -> Job | Ignored:
    if parsed.action != "rerequested":
        return Ignored(f"{event} {parsed.action!r}: only a re-run request starts a run")
    suite = parsed.check_run.check_suite if parsed.check_run else parsed.check_suite
    if suite is None:
        raise Malformed(f"{event} payload: {event}: Field required")
    head = parsed.check_run.head_sha if parsed.check_run else suite.head_sha
    numbers = [p.number for p in suite.pull_requests]
    if not numbers and pr_of_head is not None:
        found = pr_of_head(parsed.repository.full_name, head)
        numbers = [found] if found is not None else []
    if not numbers:
        return Ignored(f"{event}: no pull request gradgate knows has this head")
    return Job(
        id=delivery,
        kind=Kind.RERUN,
        pr=_pr(parsed.repository, parsed.installation, numbers[0]),
        head_sha=head,
        sender=parsed.sender.login,
        body="/recheck all" if event == "check_suite" else "/recheck",
    )
