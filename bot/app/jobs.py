"""The Job: what a worker must do for one delivery, as a frozen value with a JSON form (pure).

A job names the pull request and what happened to it; the worker decides the rest (who is
trusted, which checks run) with the API, because the server answers before it could ask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from pydantic import TypeAdapter


class Kind(StrEnum):
    PUSH = "push"  # the PR was opened, reopened, pushed to, made ready, or got a new base
    COMMENT = "comment"  # a new comment that may hold /recheck or /ok-to-test
    GPU = "gpu"  # the second half of a run: the checks that need a GPU worker
    LABEL = "label"  # the `ok-to-test` label put on the PR: approves the head it was put on
    RERUN = "rerun"  # GitHub's Re-run button on a check run (/recheck) or suite (/recheck all)
    # The PR was closed: the verdict on its head is weighed again without it (issue 34).
    CLOSED = "closed"


class Queue(StrEnum):
    CPU = "cpu"
    GPU = "gpu"


@dataclass(frozen=True, slots=True)
class PullRequest:
    repo: str  # "owner/name"
    number: int
    installation: int | None
    clone_url: str

    @property
    def key(self) -> str:
        """One name per PR, for the state store and the publish lock."""
        return f"{self.repo}#{self.number}"

    @property
    def web_url(self) -> str | None:
        """The repository's page, for file:line links (GitHub's clone URL is it plus `.git`)."""
        url = self.clone_url
        return url.removesuffix(".git") if url.startswith("https://") else None


@dataclass(frozen=True, slots=True)
class Left:
    """What the CPU half's report left in progress on its head for the GPU half: the check
    runs' ids by name (``check_runs`` None: statuses) and the names still in progress. The GPU
    half completes these, or concludes them as superseded when a newer push replaced its head."""

    check_runs: tuple[tuple[str, int], ...] | None
    running: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Job:
    id: str  # the delivery id; a GPU half adds "/gpu"
    kind: Kind
    pr: PullRequest
    head_sha: str | None = None  # push: from the event; comment: read when it runs
    base_ref: str | None = None
    author: str | None = None  # the PR's author (push)
    sender: str | None = None  # who commented, labeled, or pressed Re-run
    comment_id: int | None = None
    body: str = ""  # the comment (comment)
    known_head: str | None = None  # comment: the newest head the server had seen for the PR
    # GitHub's clock, in seconds: when a push's head became the PR's (its `updated_at`), when a
    # comment was written (its `created_at`). What an /ok-to-test binds to (``approval``).
    at: float | None = None
    # The GPU half: what the CPU half settled, so both halves judge the same revisions.
    base_sha: str | None = None
    only: tuple[str, ...] | None = None
    carried: str | None = None  # the CPU half's Report, as JSON
    left: Left | None = None  # what the CPU half left in progress (None: a job from before)
    # The CPU half's head was untrusted (its author may not write): the GPU half runs it under
    # bubblewrap too, whatever the config says.
    untrusted_head: bool = False
    # A push (`synchronize`): the head it replaced, whose verdict is weighed again without this
    # PR (issue 34); None: not a push, or GitHub did not say.
    before: str | None = None

    @property
    def queue(self) -> Queue:
        return Queue.GPU if self.kind is Kind.GPU else Queue.CPU

    def gpu_half(
        self,
        *,
        base_sha: str,
        head_sha: str,
        only: tuple[str, ...],
        carried: str,
        left: Left | None = None,
        untrusted_head: bool = False,
    ) -> Job:
        return replace(
            self,
            id=f"{self.id}/gpu",
            kind=Kind.GPU,
            base_sha=base_sha,
            head_sha=head_sha,
            only=only,
            carried=carried,
            left=left,
            untrusted_head=untrusted_head,
        )


_ADAPTER = TypeAdapter(Job)


def to_json(job: Job) -> str:
    return _ADAPTER.dump_json(job).decode("utf-8")


def from_json(text: str | bytes) -> Job:
    return _ADAPTER.validate_json(text)
