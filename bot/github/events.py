"""An Action's event (GITHUB_EVENT_NAME + the payload at GITHUB_EVENT_PATH) -> what to do (pure).

pull_request    opened, synchronize, reopened, ready_for_review: gate the PR's head; edited
                only when the base branch changed; closed: its head's verdict is weighed
                again without it (issue 34); anything else is skipped
issue_comment   a comment that may carry `/recheck` (screened in ``commands``)
workflow_run    a finished run of the checks workflow, whose results are to be published
pull_request_target  `labeled` only: a label put on a PR (the trusted side reads the
                `ok-to-test` label as an approval of the head it was put on); anything else
                is skipped

Payloads are parsed into the few typed fields gradgate reads (pydantic); a payload that lacks
them is a UsageError naming the field, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from gradgate.bot.github.commands import CommentEvent
from gradgate.bot.github.identifiers import Sha
from gradgate.checks.errors import UsageError
from pydantic import BaseModel, ConfigDict, ValidationError

_MODEL = ConfigDict(extra="ignore", frozen=True)
GATED_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})


class Skipped(StrEnum):
    """Why an event gates nothing; the door says so in the log."""

    PULL_REQUEST_ACTION = "pull-request-action"  # closed, labeled, ...
    EDITED_NOT_BASE = "edited-not-base"  # a title or body edit
    NOT_LABELED = "not-labeled"  # pull_request_target: only a label put on is read
    RUN_CANCELLED = "run-cancelled"  # the checks workflow was cancelled (a newer push)
    OTHER_EVENT = "other-event"


@dataclass(frozen=True, slots=True)
class PullRequestEvent:
    action: str
    repo: str  # owner/name
    number: int
    head_sha: str
    base_sha: str
    head_ref: str
    head_repo: str | None  # None: the fork was deleted
    author: str
    before: str | None = None  # synchronize: the head the push replaced (issue 34)


@dataclass(frozen=True, slots=True)
class WorkflowRunEvent:
    repo: str
    run_id: int
    head_sha: str  # set by GitHub, not by the run: what the results must be for
    head_branch: str | None
    head_repo: str | None
    conclusion: str | None


@dataclass(frozen=True, slots=True)
class LabelEvent:
    """A label put on a pull request (`pull_request_target` `labeled`), by ``sender``."""

    repo: str
    number: int
    label: str
    head_sha: str  # the PR's head when the label was put on: what an approval names
    sender: str
    sender_type: str  # "User", "Bot", ...


@dataclass(frozen=True, slots=True)
class Skip:
    event: str
    action: str | None
    why: Skipped


Event = PullRequestEvent | CommentEvent | WorkflowRunEvent | LabelEvent | Skip


class _Repo(BaseModel):
    model_config = _MODEL
    full_name: str


class _User(BaseModel):
    model_config = _MODEL
    login: str
    type: str = "User"


class _Ref(BaseModel):
    model_config = _MODEL
    sha: str
    ref: str
    repo: _Repo | None = None


class _Pull(BaseModel):
    model_config = _MODEL
    number: int
    head: _Ref
    base: _Ref
    user: _User


class _PullEvent(BaseModel):
    model_config = _MODEL
    action: str
    pull_request: _Pull
    repository: _Repo
    changes: dict[str, Any] | None = None
    before: Sha | None = None  # synchronize: the head the push replaced


class _Label(BaseModel):
    model_config = _MODEL
    name: str


class _LabelEvent(BaseModel):
    model_config = _MODEL
    action: str
    label: _Label | None = None  # only in `labeled` and `unlabeled`
    pull_request: _Pull
    repository: _Repo
    sender: _User


class _Issue(BaseModel):
    model_config = _MODEL
    number: int
    pull_request: dict[str, Any] | None = None  # present when the issue is a PR


class _Comment(BaseModel):
    model_config = _MODEL
    id: int
    body: str | None = None
    user: _User


class _CommentEvent(BaseModel):
    model_config = _MODEL
    action: str
    issue: _Issue
    comment: _Comment
    repository: _Repo


class _Run(BaseModel):
    model_config = _MODEL
    id: int
    head_sha: str
    head_branch: str | None = None
    head_repository: _Repo | None = None
    conclusion: str | None = None


class _RunEvent(BaseModel):
    model_config = _MODEL
    action: str
    workflow_run: _Run
    repository: _Repo


def read_event(name: str, payload: Any) -> Event:
    """The event GitHub delivered, as the values gradgate acts on."""
    if name == "pull_request":
        pull_event = _parse(_PullEvent, name, payload)
        if pull_event.action == "edited" and "base" not in (pull_event.changes or {}):
            return Skip(name, pull_event.action, Skipped.EDITED_NOT_BASE)
        if pull_event.action not in GATED_ACTIONS | {"edited", "closed"}:
            return Skip(name, pull_event.action, Skipped.PULL_REQUEST_ACTION)
        pr = pull_event.pull_request
        return PullRequestEvent(
            action=pull_event.action,
            repo=pull_event.repository.full_name,
            number=pr.number,
            head_sha=pr.head.sha,
            base_sha=pr.base.sha,
            head_ref=pr.head.ref,
            head_repo=pr.head.repo.full_name if pr.head.repo else None,
            author=pr.user.login,
            before=pull_event.before if pull_event.action == "synchronize" else None,
        )
    if name == "issue_comment":
        comment_event = _parse(_CommentEvent, name, payload)
        return CommentEvent(
            action=comment_event.action,
            number=comment_event.issue.number,
            is_pull_request=comment_event.issue.pull_request is not None,
            comment_id=comment_event.comment.id,
            body=comment_event.comment.body or "",
            author=comment_event.comment.user.login,
            author_type=comment_event.comment.user.type,
        )
    if name == "workflow_run":
        run_event = _parse(_RunEvent, name, payload)
        run = run_event.workflow_run
        if run.conclusion == "cancelled":
            return Skip(name, run_event.action, Skipped.RUN_CANCELLED)
        return WorkflowRunEvent(
            repo=run_event.repository.full_name,
            run_id=run.id,
            head_sha=run.head_sha,
            head_branch=run.head_branch,
            head_repo=run.head_repository.full_name if run.head_repository else None,
            conclusion=run.conclusion,
        )
    if name == "pull_request_target":
        label_event = _parse(_LabelEvent, name, payload)
        if label_event.action != "labeled" or label_event.label is None:
            return Skip(name, label_event.action, Skipped.NOT_LABELED)
        return LabelEvent(
            repo=label_event.repository.full_name,
            number=label_event.pull_request.number,
            label=label_event.label.name,
            head_sha=label_event.pull_request.head.sha,
            sender=label_event.sender.login,
            sender_type=label_event.sender.type,
        )
    return Skip(name, None, Skipped.OTHER_EVENT)


M = TypeVar("M", bound=BaseModel)


def _parse(model: type[M], name: str, payload: Any) -> M:
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UsageError(
            f"the `{name}` event payload has no valid `{where}`: {first['msg']}"
        ) from None
