"""What gradgate needs from GitHub: one narrow port, and the plain values that cross it.

The publisher and the `/recheck` handler take a ``GitHubPort``; ``client.GitHubClient``
implements it over PyGithub. Tests run that real client against the one fake GitHub server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

StatusState = Literal["pending", "success", "failure", "error"]
Event = Literal["COMMENT", "REQUEST_CHANGES"]  # a review's; gradgate never approves


@dataclass(frozen=True, slots=True)
class PullRequest:
    number: int
    head_sha: str
    base_sha: str
    head_ref: str
    head_repo: str | None  # owner/name of the head repository; None when the fork is gone
    author: str
    state: str  # "open" or "closed"
    base_ref: str = ""  # the base branch's name (the App fetches it)


@dataclass(frozen=True, slots=True)
class Comment:
    id: int
    body: str
    author: str
    author_is_bot: bool


@dataclass(frozen=True, slots=True)
class Status:
    context: str
    state: StatusState
    description: str
    target_url: str | None = None


@dataclass(frozen=True, slots=True)
class CommitStatus:
    """A status as listed on a commit, with the login that made it."""

    context: str
    state: str
    description: str
    creator: str


@dataclass(frozen=True, slots=True)
class Annotation:
    """A finding's mark on a line of "Files changed" (a check run annotation)."""

    path: str
    start_line: int
    end_line: int
    level: Literal["notice", "warning", "failure"]
    message: str
    title: str | None = None


@dataclass(frozen=True, slots=True)
class CheckRun:
    name: str
    # None: in progress; else GitHub's: success, failure, neutral, skipped, cancelled
    conclusion: str | None
    title: str
    summary: str
    annotations: tuple[Annotation, ...] = ()
    details_url: str | None = None
    external_id: str | None = None


@dataclass(frozen=True, slots=True)
class CheckRunState:
    """A check run as listed on a commit."""

    id: int
    name: str
    status: str  # queued, in_progress, completed
    conclusion: str | None
    app: str | None  # the slug of the App that made it
    external_id: str | None = None  # what it was computed against (``checkruns.stamp``)
    title: str | None = None
    summary: str | None = None


@dataclass(frozen=True, slots=True)
class WorkflowRun:
    id: int
    head_sha: str
    status: str  # queued, in_progress, completed, ...
    conclusion: str | None


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """An inline comment of a review, on a line of the pull request's diff."""

    path: str
    line: int
    side: Literal["LEFT", "RIGHT"]  # LEFT: a deleted base line; RIGHT: a head line
    body: str


@dataclass(frozen=True, slots=True)
class ReviewDraft:
    event: Event
    body: str
    comments: tuple[ReviewComment, ...] = ()


@dataclass(frozen=True, slots=True)
class Review:
    """A submitted review, as listed."""

    id: int
    author: str
    state: str  # GitHub's: COMMENTED, CHANGES_REQUESTED, APPROVED, DISMISSED, PENDING
    body: str


class GitHubPort(Protocol):
    """The GitHub calls gradgate makes, on one repository. Every failure is a GitHubError."""

    def pull(self, number: int) -> PullRequest: ...

    def open_pulls(self, sha: str) -> list[PullRequest]:
        """The open pull requests whose head is ``sha`` (GitHub's pull requests associated
        with the commit, all pages)."""
        ...

    def comments(self, number: int) -> list[Comment]:
        """Every comment on the PR's conversation, oldest first (all pages)."""
        ...

    def create_comment(self, number: int, body: str) -> Comment: ...

    def edit_comment(self, number: int, comment_id: int, body: str) -> None: ...

    def delete_comment(self, number: int, comment_id: int) -> None:
        """Deleting a comment that is already gone is no error."""
        ...

    def react(self, number: int, comment_id: int, content: str) -> None: ...

    def set_status(self, sha: str, status: Status) -> None: ...

    def statuses(self, sha: str) -> list[CommitStatus]:
        """Every status on the commit, newest first (all pages). Reading needs `statuses: read`."""
        ...

    def create_check_run(self, sha: str, run: CheckRun) -> int:
        """The new check run's id. Needs `checks: write`; without it, a GitHubError (403)."""
        ...

    def update_check_run(self, run_id: int, run: CheckRun) -> None: ...

    def check_runs(self, sha: str) -> list[CheckRunState]:
        """Every check run on the commit, by any App (all pages)."""
        ...

    def permission(self, login: str) -> str:
        """``admin``, ``write``, ``read`` or ``none`` (GitHub's legacy permission names)."""
        ...

    def latest_run(self, workflow: str, head_sha: str) -> WorkflowRun | None:
        """The newest `pull_request` run of ``workflow`` (a file name) for ``head_sha``."""
        ...

    def rerun(self, run_id: int, *, failed_only: bool) -> None: ...

    def create_review(self, number: int, commit_sha: str, draft: ReviewDraft) -> int:
        """Submit a review of ``commit_sha``; its id. GitHub refuses it whole (422) when a
        comment is not on a line of the diff."""
        ...

    def reviews(self, number: int) -> list[Review]:
        """Every review of the pull request, oldest first (all pages)."""
        ...

    def review_comment_ids(self, number: int, review_id: int) -> list[int]:
        """The ids of a review's inline comments (all pages)."""
        ...

    def delete_review_comment(self, number: int, comment_id: int) -> None:
        """Deleting an inline comment that is already gone is no error."""
        ...

    def dismiss_review(self, number: int, review_id: int, message: str) -> None: ...

    def edit_review(self, number: int, review_id: int, body: str) -> None: ...
