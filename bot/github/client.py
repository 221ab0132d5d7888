"""PyGithub's one door (with ``app_tokens`` beside it, which gets a GitHub App's installation
tokens): ``GitHubClient`` implements ``GitHubPort`` over the REST API.

PyGithub does the HTTP, the paging (``per_page=100``) and the retrying (``GithubRetry``: 5xx,
and 403/429 rate limits honouring ``Retry-After``, with exponential backoff). This module turns
PyGithub's objects into gradgate's plain values and every failure, retries exhausted included,
into one ``GitHubError``: a call that failed can never read as a success.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import requests
from github import Auth, Github, GithubException, GithubRetry
from github.CheckRun import CheckRun as GithubCheckRun
from github.CommitStatus import CommitStatus as GithubStatus
from github.IssueComment import IssueComment
from github.PaginatedList import PaginatedList
from github.PullRequest import PullRequest as GithubPullRequest
from github.Repository import Repository
from gradgate.bot.github import listing
from gradgate.bot.github.checkruns import batches, request_output, request_state
from gradgate.bot.github.ports import (
    CheckRun,
    CheckRunState,
    Comment,
    CommitStatus,
    PullRequest,
    Review,
    ReviewDraft,
    Status,
    WorkflowRun,
)
from gradgate.checks.errors import GitHubError


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to try. Tests shrink the waits; the defaults are PyGithub's and GitHub's advice."""

    total: int = 5  # retries per request, after the first try
    backoff_s: float = 1.0  # waits backoff_s * 2**(n-1) between tries, capped at backoff_max_s
    backoff_max_s: float = 60.0
    # A secondary rate limit without Retry-After: GitHub asks to wait "at least one minute".
    secondary_rate_wait_s: float = 60.0
    request_interval_s: float = 0.25  # PyGithub's pacing between any two requests
    write_interval_s: float = 1.0  # GitHub's advice: a second between writes (secondary limits)


@dataclass(frozen=True, slots=True)
class Connection:
    api_url: str  # https://api.github.com, a GitHub Enterprise Server's /api/v3, or a fake
    token: str
    repo: str  # owner/name
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout_s: int = 30


# The methods GithubRetry retries, plus PATCH: editing a comment to the same body is idempotent.
# POST (a new comment) is retried too; the sticky comment removes a duplicate a retry may leave.
_RETRIED = frozenset({"HEAD", "GET", "PUT", "DELETE", "OPTIONS", "TRACE", "POST", "PATCH"})


def retry(policy: RetryPolicy) -> GithubRetry:
    return GithubRetry(
        total=policy.total,
        backoff_factor=policy.backoff_s,
        backoff_max=policy.backoff_max_s,
        secondary_rate_wait=policy.secondary_rate_wait_s,
        allowed_methods=_RETRIED,
        status_forcelist=[429, *range(500, 600)],  # GithubRetry adds 403
    )


@contextmanager
def call(what: str) -> Iterator[None]:
    try:
        yield
    except GithubException as exc:
        message = _message(exc)
        raise GitHubError(
            f"GitHub refused to {what}: HTTP {exc.status}{f': {message}' if message else ''}",
            status=exc.status,
        ) from exc
    except requests.RequestException as exc:
        raise GitHubError(f"could not {what}: {type(exc).__name__}: {exc}") from exc


class GitHubClient:
    """``GitHubPort`` on one repository."""

    def __init__(self, connection: Connection) -> None:
        policy = connection.retry
        self._github = Github(
            auth=Auth.Token(connection.token),
            base_url=connection.api_url.rstrip("/"),
            per_page=100,
            retry=retry(policy),
            timeout=connection.timeout_s,
            seconds_between_requests=policy.request_interval_s,
            seconds_between_writes=policy.write_interval_s,
            lazy=True,  # no GET before each write: the objects below are built from their URLs
        )
        self._repo: Repository = self._github.get_repo(connection.repo)

    def close(self) -> None:
        self._github.close()

    def pull(self, number: int) -> PullRequest:
        with call(f"read pull request #{number}"):
            return _pull_value(self._repo.get_pull(number))

    def open_pulls(self, sha: str) -> list[PullRequest]:
        with call(f"list the pull requests of {sha[:7]}"):
            listed = self._on_commit(GithubPullRequest, sha, "pulls", None)
            found = [_pull_value(pr) for pr in listed]
            return [p for p in found if p.state == "open" and p.head_sha == sha]

    def comments(self, number: int) -> list[Comment]:
        with call(f"list the comments of #{number}"):
            return [
                Comment(
                    id=c.id, body=c.body or "", author=c.user.login, author_is_bot=_bot(c.user.type)
                )
                for c in self._repo.get_issue(number).get_comments()
            ]

    def create_comment(self, number: int, body: str) -> Comment:
        with call(f"comment on #{number}"):
            c = self._repo.get_issue(number).create_comment(body)
            return Comment(
                id=c.id, body=c.body or "", author=c.user.login, author_is_bot=_bot(c.user.type)
            )

    def edit_comment(self, number: int, comment_id: int, body: str) -> None:
        with call(f"edit comment {comment_id}"):
            self._comment(number, comment_id).edit(body)

    def delete_comment(self, number: int, comment_id: int) -> None:
        with call(f"delete comment {comment_id}"):
            try:
                self._comment(number, comment_id).delete()
            except GithubException as exc:
                if exc.status != 404:  # already gone: what we wanted
                    raise

    def react(self, number: int, comment_id: int, content: str) -> None:
        with call(f"react to comment {comment_id}"):
            self._comment(number, comment_id).create_reaction(content)

    def set_status(self, sha: str, status: Status) -> None:
        with call(f"set status `{status.context}` on {sha[:7]}"):
            optional = {"target_url": status.target_url} if status.target_url else {}
            self._repo.get_commit(sha).create_status(
                state=status.state,
                description=status.description,
                context=status.context,
                **optional,
            )

    def create_check_run(self, sha: str, run: CheckRun) -> int:
        with call(f"create check run `{run.name}` on {sha[:7]}"):
            first, *rest = batches(run) or [()]
            made = self._repo.create_check_run(
                name=run.name, head_sha=sha, output=request_output(run, first), **request_state(run)
            )
            for batch in rest:  # GitHub takes 50 annotations a request, appending each batch
                made.edit(output=request_output(run, batch))
            return made.id

    def update_check_run(self, run_id: int, run: CheckRun) -> None:
        with call(f"update check run `{run.name}`"):
            check_run = self._repo.get_check_run(run_id)
            first, *rest = batches(run) or [()]
            check_run.edit(output=request_output(run, first), **request_state(run))
            for batch in rest:
                check_run.edit(output=request_output(run, batch))

    def check_runs(self, sha: str) -> list[CheckRunState]:
        with call(f"list the check runs on {sha[:7]}"):
            # every run, not only each name's latest: a twin left by a lost answer is an older one
            listed = self._on_commit(GithubCheckRun, sha, "check-runs", {"filter": "all"})
            return [listing.check_run_state(r._rawData) for r in listed]

    def statuses(self, sha: str) -> list[CommitStatus]:
        with call(f"list the statuses on {sha[:7]}"):
            listed = self._on_commit(GithubStatus, sha, "statuses", None)
            return [listing.commit_status(r._rawData) for r in listed]

    def _on_commit(self, kind: Any, sha: str, what: str, params: Any) -> PaginatedList[Any]:
        """A list on a commit (a lazy Commit has no URL to list from), read as listed."""
        url, item = f"{self._repo.url}/commits/{sha}/{what}", what.replace("-", "_")
        return PaginatedList(kind, self._repo._requester, url, params, list_item=item)

    def permission(self, login: str) -> str:
        with call(f"read the permission of @{login}"):
            try:
                return self._repo.get_collaborator_permission(login)
            except GithubException as exc:
                if exc.status == 404:  # not a user GitHub knows: no access
                    return "none"
                raise

    def latest_run(self, workflow: str, head_sha: str) -> WorkflowRun | None:
        with call(f"list the runs of workflow {workflow}"):
            runs = self._repo.get_workflow(workflow).get_runs(
                head_sha=head_sha, event="pull_request"
            )
            found = [
                WorkflowRun(id=r.id, head_sha=r.head_sha, status=r.status, conclusion=r.conclusion)
                for r in runs
            ]
        return max(found, key=lambda r: r.id, default=None)

    def rerun(self, run_id: int, *, failed_only: bool) -> None:
        what = f"re-run {'the failed jobs of ' if failed_only else ''}workflow run {run_id}"
        with call(what):
            run = self._repo.get_workflow_run(run_id)
            accepted = run.rerun_failed_jobs() if failed_only else run.rerun()
        if not accepted:  # PyGithub returns False instead of raising for these two calls
            raise GitHubError(f"GitHub refused to {what}")

    # -- pull request reviews (report.review) -------------------------------------------------

    def create_review(self, number: int, commit_sha: str, draft: ReviewDraft) -> int:
        with call(f"review #{number}"):
            made = self._repo.get_pull(number).create_review(
                commit=self._repo.get_commit(commit_sha),  # lazy: no GET, the SHA is in its URL
                body=draft.body,
                event=draft.event,
                comments=[
                    {"path": c.path, "line": c.line, "side": c.side, "body": c.body}
                    for c in draft.comments
                ],
            )
            return made.id

    def reviews(self, number: int) -> list[Review]:
        with call(f"list the reviews of #{number}"):
            return [
                Review(
                    id=r.id,
                    author=r.user.login if r.user is not None else "",
                    state=r.state,
                    body=r.body or "",
                )
                for r in self._repo.get_pull(number).get_reviews()
            ]

    def review_comment_ids(self, number: int, review_id: int) -> list[int]:
        with call(f"list the comments of review {review_id}"):
            return [c.id for c in self._repo.get_pull(number).get_single_review_comments(review_id)]

    def delete_review_comment(self, number: int, comment_id: int) -> None:
        with call(f"delete review comment {comment_id}"):
            try:
                self._repo.get_pull(number).get_review_comment(comment_id).delete()
            except GithubException as exc:
                if exc.status != 404:  # already gone: what we wanted
                    raise

    def dismiss_review(self, number: int, review_id: int, message: str) -> None:
        with call(f"dismiss review {review_id}"):
            pull = self._repo.get_pull(number)
            try:
                pull.get_review(review_id).dismiss(message)
            except GithubException as exc:
                # A retried PUT whose first answer was lost finds it dismissed already (422).
                if exc.status != 422 or pull.get_review(review_id).state != "DISMISSED":
                    raise

    def edit_review(self, number: int, review_id: int, body: str) -> None:
        with call(f"edit review {review_id}"):
            self._repo.get_pull(number).get_review(review_id).edit(body)

    def _comment(self, number: int, comment_id: int) -> IssueComment:
        return self._repo.get_issue(number).get_comment(comment_id)


def _message(exc: GithubException) -> str | None:
    if exc.message:
        return exc.message
    data = exc.data
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return None


def _bot(user_type: str | None) -> bool:
    return user_type == "Bot"


def _pull_value(pr: GithubPullRequest) -> PullRequest:
    head_repo = pr.head.repo
    return PullRequest(
        number=pr.number,
        head_sha=pr.head.sha,
        base_sha=pr.base.sha,
        head_ref=pr.head.ref,
        head_repo=head_repo.full_name if head_repo is not None else None,
        author=pr.user.login,
        state=pr.state,
        base_ref=pr.base.ref,
    )
