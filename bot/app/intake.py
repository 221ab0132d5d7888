"""What a delivery asks for: (event, payload) -> a Job, or the reason it is ignored (pure).

Only the fields gradgate needs are parsed (pydantic, unknown keys ignored); a handled event
whose payload lacks them is malformed (the server answers 400). The server does nothing slow:
whether a comment's command counts, and who may give it, the worker decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gradgate.bot.app.jobs import Job, Kind, PullRequest
from pydantic import BaseModel, ConfigDict, ValidationError

# pull_request actions that change what the gate must judge. `edited` only when the base branch
# changed (a title edit changes nothing); `closed` and the rest never start a run.
RUN_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
COMMANDS = ("/recheck", "/ok-to-test")


class Malformed(ValueError):
    """A handled event whose payload is not the shape GitHub sends."""


@dataclass(frozen=True, slots=True)
class Ignored:
    reason: str


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _User(_Model):
    login: str
    type: str = "User"


class _Repo(_Model):
    full_name: str
    clone_url: str


class _Installation(_Model):
    id: int


class _Ref(_Model):
    ref: str
    sha: str


class _PullRequest(_Model):
    number: int
    head: _Ref
    base: _Ref
    user: _User


class _PullRequestEvent(_Model):
    action: str
    pull_request: _PullRequest
    repository: _Repo
    installation: _Installation | None = None
    changes: dict[str, Any] | None = None


class _Issue(_Model):
    number: int
    pull_request: dict[str, Any] | None = None  # present only when the issue is a PR


class _Comment(_Model):
    id: int
    body: str | None = None
    user: _User


class _CommentEvent(_Model):
    action: str
    issue: _Issue
    comment: _Comment
    repository: _Repo
    installation: _Installation | None = None


def intake(
    event: str, delivery: str, payload: Mapping[str, Any], *, known_head: str | None = None
) -> Job | Ignored:
    """The job a delivery starts. ``known_head``: the newest head the server has recorded for
    the PR a comment is on (binds an /ok-to-test to what the commenter could have seen)."""
    try:
        if event == "pull_request":
            return _pull_request(delivery, _PullRequestEvent.model_validate(payload))
        if event == "issue_comment":
            return _comment(delivery, _CommentEvent.model_validate(payload), known_head)
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


def _pr(repo: _Repo, installation: _Installation | None, number: int) -> PullRequest:
    return PullRequest(
        repo=repo.full_name,
        number=number,
        installation=installation.id if installation else None,
        clone_url=repo.clone_url,
    )


def _pull_request(delivery: str, event: _PullRequestEvent) -> Job | Ignored:
    base_changed = event.action == "edited" and bool(event.changes and "base" in event.changes)
    if event.action not in RUN_ACTIONS and not base_changed:
        return Ignored(f"pull_request {event.action!r} changes nothing gradgate judges")
    pr = event.pull_request
    return Job(
        id=delivery,
        kind=Kind.PUSH,
        pr=_pr(event.repository, event.installation, pr.number),
        head_sha=pr.head.sha,
        base_ref=pr.base.ref,
        author=pr.user.login,
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
    )
