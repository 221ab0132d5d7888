"""The fake GitHub's in-memory world: users, repositories, pull requests, comments, statuses,
reactions, collaborators, workflow runs, check runs and reviews with their inline comments, as
plain mutable records tests can also change."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

WEBHOOKS = Path(__file__).resolve().parents[1] / "fixtures" / "github" / "webhooks"
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass
class User:
    login: str
    id: int
    type: str = "User"  # or "Bot"


@dataclass
class Pull:
    number: int
    head_sha: str
    base_sha: str
    author: str
    head_ref: str = "feature"
    base_ref: str = "main"
    head_repo: str | None = None  # owner/name; None: the same repository
    state: str = "open"
    # The lines GitHub takes review comments on: path -> side (LEFT, RIGHT) -> line numbers
    # (``diffs.commentable``). None: the test did not say, and any line is taken.
    diff: dict[str, dict[str, set[int]]] | None = None


@dataclass
class Comment:
    id: int
    number: int
    body: str
    author: str
    created: int  # fake clock ticks
    updated: int


@dataclass
class StatusRecord:
    id: int
    sha: str
    context: str
    state: str
    description: str | None
    target_url: str | None
    creator: str
    created: int


@dataclass
class Reaction:
    id: int
    comment_id: int
    content: str
    user: str


@dataclass
class Run:
    id: int
    workflow: str  # file name, e.g. gradgate.yml
    head_sha: str
    head_ref: str
    event: str = "pull_request"
    status: str = "completed"
    conclusion: str | None = "failure"
    run_number: int = 1
    reruns: list[str] = field(default_factory=list)  # "all" or "failed", in order


@dataclass
class CheckRunRecord:
    id: int
    sha: str
    name: str
    status: str
    conclusion: str | None
    title: str | None
    summary: str | None
    external_id: str | None
    details_url: str | None
    annotations: list[dict[str, object]] = field(default_factory=list)
    created: int = 0


@dataclass
class ReviewRecord:
    id: int
    number: int
    author: str
    state: str  # COMMENTED, CHANGES_REQUESTED, APPROVED, DISMISSED
    body: str
    commit_id: str
    submitted: int


@dataclass
class ReviewCommentRecord:
    id: int
    review_id: int
    number: int
    path: str
    line: int
    side: str  # LEFT or RIGHT
    body: str
    author: str
    commit_id: str
    created: int


@dataclass
class Repo:
    full_name: str
    id: int
    pulls: dict[int, Pull] = field(default_factory=dict)
    comments: dict[int, Comment] = field(default_factory=dict)
    statuses: list[StatusRecord] = field(default_factory=list)
    reactions: list[Reaction] = field(default_factory=list)
    collaborators: dict[str, str] = field(default_factory=dict)  # login -> admin|write|read
    runs: dict[int, Run] = field(default_factory=dict)
    check_runs: dict[int, CheckRunRecord] = field(default_factory=dict)
    reviews: dict[int, ReviewRecord] = field(default_factory=dict)
    review_comments: dict[int, ReviewCommentRecord] = field(default_factory=dict)

    def latest_check_runs(self, sha: str) -> dict[str, CheckRunRecord]:
        """What GitHub shows for a commit: the newest check run of each name."""
        out: dict[str, CheckRunRecord] = {}
        for record in sorted(self.check_runs.values(), key=lambda r: r.id):
            if record.sha == sha:
                out[record.name] = record
        return out

    def latest_statuses(self, sha: str) -> dict[str, StatusRecord]:
        """What GitHub shows for a commit: the newest status of each context."""
        out: dict[str, StatusRecord] = {}
        for record in self.statuses:
            if record.sha == sha:
                out[record.context] = record
        return out


def timestamp(tick: int) -> str:
    return (_EPOCH + timedelta(seconds=tick)).strftime("%Y-%m-%dT%H:%M:%SZ")
