"""The fake GitHub's endpoints: what each REST call does to the in-memory world, and answers.

Each answers as GitHub does, including its refusals: 404 for what does not exist, 403 for a
token that may not write or a comment that is not its own, 422 for a body over GitHub's limits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.fakegithub.render import Render
from tests.fakegithub.state import CheckRunRecord, Comment, Reaction, Repo, Run, StatusRecord, User

DOCS = "https://docs.github.com/rest"
COMMENT_LIMIT = 65_536  # GitHub: "Body is too long (maximum is 65536 characters)"
STATUS_LIMIT = 140


class Answer(Exception):
    """An answer other than the endpoint's usual one (an error), raised from deep inside."""

    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None):
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}


def error(status: int, message: str) -> Answer:
    return Answer(status, {"message": message, "documentation_url": DOCS})


class Endpoints:
    """Mixed into FakeGitHub, which holds the world these read and change."""

    url: str
    render: Render
    users: dict[str, User]
    repos: dict[str, Repo]

    def _next_id(self) -> int:
        raise NotImplementedError

    def tick(self) -> int:
        raise NotImplementedError

    def _pull(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        pull = repo.pulls.get(int(m["number"]))
        if pull is None:
            raise error(404, "Not Found")
        return 200, self.render.pull(repo, pull, self.users)

    def _list_comments(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        number = int(m["number"])
        if number not in repo.pulls:
            raise error(404, "Not Found")
        items = [
            c for c in sorted(repo.comments.values(), key=lambda c: c.id) if c.number == number
        ]
        page, links = self._page(items, q, m.string)
        return 200, [self.render.comment(repo, c, self.users) for c in page], links

    def _create_comment(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        number = int(m["number"])
        if number not in repo.pulls:
            raise error(404, "Not Found")
        self._fits_comment(body["body"])
        now = self.tick()
        comment = Comment(self._next_id(), number, body["body"], login, now, now)
        repo.comments[comment.id] = comment
        return 201, self.render.comment(repo, comment, self.users)

    def _comment(self, repo: Repo, m: re.Match[str]) -> Comment:
        comment = repo.comments.get(int(m["comment"]))
        if comment is None:
            raise error(404, "Not Found")
        return comment

    def _get_comment(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        return 200, self.render.comment(repo, self._comment(repo, m), self.users)

    def _edit_comment(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        comment = self._comment(repo, m)
        if comment.author != login:
            raise error(403, "Resource not accessible by integration")
        self._fits_comment(body["body"])
        comment.body = body["body"]
        comment.updated = self.tick()
        return 200, self.render.comment(repo, comment, self.users)

    def _delete_comment(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        comment = self._comment(repo, m)
        if comment.author != login and repo.collaborators.get(login) != "admin":
            raise error(403, "Resource not accessible by integration")
        del repo.comments[comment.id]
        return 204, None

    def _react(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        comment = self._comment(repo, m)
        for reaction in repo.reactions:
            if (reaction.comment_id, reaction.content, reaction.user) == (
                comment.id,
                body["content"],
                login,
            ):
                return 200, self.render.reaction(reaction, self.users)
        reaction = Reaction(self._next_id(), comment.id, body["content"], login)
        repo.reactions.append(reaction)
        return 201, self.render.reaction(reaction, self.users)

    def _status(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        description = body.get("description")
        if description is not None and len(description) > STATUS_LIMIT:
            raise Answer(
                422,
                {
                    "message": "Validation Failed",
                    "errors": [
                        {
                            "resource": "Status",
                            "code": "custom",
                            "field": "description",
                            "message": "description is too long (maximum is 140 characters)",
                        }
                    ],
                    "documentation_url": DOCS,
                },
            )
        record = StatusRecord(
            id=self._next_id(),
            sha=m["sha"],
            context=body.get("context") or "default",
            state=body["state"],
            description=description,
            target_url=body.get("target_url"),
            creator=login,
            created=self.tick(),
        )
        repo.statuses.append(record)
        return 201, self.render.status(repo, record, self.users)

    def _list_statuses(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        records = [r for r in reversed(repo.statuses) if r.sha == m["ref"]]  # newest first
        page, headers = self._page(records, q, m.string)
        return 200, [self.render.status(repo, r, self.users) for r in page], headers

    def _commit_pulls(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        """GitHub: for a commit not on the default branch, the open pull requests associated
        with it; here, those whose head it is (the fake knows no other association)."""
        pulls = sorted(repo.pulls.values(), key=lambda p: p.number)
        found = [p for p in pulls if p.head_sha == m["ref"] and p.state == "open"]
        page, headers = self._page(found, q, m.string)
        return 200, [self.render.pull(repo, p, self.users) for p in page], headers

    def _permission(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        user = m["user"]
        if user not in self.users:
            raise error(404, "Not Found")
        permission = repo.collaborators.get(user, "none")
        return 200, self.render.permission(user, permission, self.users)

    def _runs(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        runs = [
            r
            for r in sorted(repo.runs.values(), key=lambda r: -r.id)  # GitHub: newest first
            if r.workflow == m["workflow"]
            and r.head_sha == q.get("head_sha", r.head_sha)
            and r.event == q.get("event", r.event)
        ]
        page, links = self._page(runs, q, m.string)
        body = {
            "total_count": len(runs),
            "workflow_runs": [self.render.run(repo, r, self.users) for r in page],
        }
        return 200, body, links

    def _run(self, repo: Repo, m: re.Match[str]) -> Run:
        run = repo.runs.get(int(m["run"]))
        if run is None:
            raise error(404, "Not Found")
        return run

    def _get_run(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        return 200, self.render.run(repo, self._run(repo, m), self.users)

    def _rerun(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        run = self._run(repo, m)
        failed_only = m.string.endswith("/rerun-failed-jobs")
        if run.status != "completed":
            raise error(403, "This workflow run is not completed")
        if failed_only and run.conclusion == "success":
            raise error(403, "This workflow run has no failed jobs")
        run.reruns.append("failed" if failed_only else "all")
        run.status, run.conclusion = "queued", None
        return 201, {}

    # -- helpers -----------------------------------------------------------------------------

    def _fits_comment(self, text: str) -> None:
        if len(text) > COMMENT_LIMIT:
            raise Answer(
                422,
                {
                    "message": "Validation Failed",
                    "errors": [
                        {
                            "resource": "IssueComment",
                            "code": "unprocessable",
                            "field": "data",
                            "message": "Body is too long (maximum is 65536 characters)",
                        }
                    ],
                    "documentation_url": DOCS,
                },
            )

    def _page(
        self, items: list[Any], q: dict[str, str], path: str
    ) -> tuple[list[Any], dict[str, str]]:
        per_page = min(int(q.get("per_page", 30)), 100)
        page = int(q.get("page", 1))
        last = max(1, -(-len(items) // per_page))
        links = []
        extra = "".join(f"&{k}={v}" for k, v in sorted(q.items()) if k not in ("page", "per_page"))
        if page < last:
            links.append(
                f'<{self.url}{path}?per_page={per_page}&page={page + 1}{extra}>; rel="next"'
            )
            links.append(f'<{self.url}{path}?per_page={per_page}&page={last}{extra}>; rel="last"')
        return items[(page - 1) * per_page : page * per_page], (
            {"Link": ", ".join(links)} if links else {}
        )

    def _create_check_run(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        _settable(body)
        output = body.get("output") or {}
        record = CheckRunRecord(
            id=self._next_id(),
            sha=body["head_sha"],
            name=body["name"],
            status="completed" if body.get("conclusion") else body.get("status", "queued"),
            conclusion=body.get("conclusion"),
            title=output.get("title"),
            summary=output.get("summary"),
            external_id=body.get("external_id"),
            details_url=body.get("details_url"),
            annotations=list(output.get("annotations", [])),
            created=self.tick(),
        )
        repo.check_runs[record.id] = record
        return 201, self.render.check_run(repo, record)

    def _list_check_runs(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        records = sorted(repo.check_runs.values(), key=lambda r: -r.id)  # GitHub: newest first
        records = [r for r in records if r.sha == m["ref"]]
        if q.get("filter", "latest") == "latest":
            records = [r for r in records if repo.latest_check_runs(r.sha)[r.name] is r]
        page, headers = self._page(records, q, m.string)
        items = [self.render.check_run(repo, r) for r in page]
        return 200, {"total_count": len(records), "check_runs": items}, headers

    def _update_check_run(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        record = repo.check_runs.get(int(m["check_run"]))
        if record is None:
            raise error(404, "Not Found")
        _settable(body)
        output = body.get("output") or {}
        if body.get("conclusion"):
            record.status, record.conclusion = "completed", body["conclusion"]
        elif body.get("status"):
            record.status = body["status"]
        record.title = output.get("title", record.title)
        record.summary = output.get("summary", record.summary)
        record.annotations += output.get("annotations", [])  # GitHub appends them
        for key in ("external_id", "details_url"):
            if key in body:
                setattr(record, key, body[key])
        return 200, self.render.check_run(repo, record)


def _settable(body: Any) -> None:
    """GitHub's description of `conclusion`: "You cannot change a check run conclusion to
    `stale`, only GitHub can set this." The enum lists it, so the schema check lets it through."""
    if body.get("conclusion") == "stale":
        raise Answer(
            422,
            {
                "message": "Validation Failed",
                "errors": ["conclusion `stale` can only be set by GitHub"],
                "documentation_url": DOCS,
            },
        )


_REPO = r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
ROUTES: list[tuple[str, re.Pattern[str], Callable[..., Any]]] = [
    ("POST", re.compile(_REPO + r"/check-runs$"), Endpoints._create_check_run),
    (
        "PATCH",
        re.compile(_REPO + r"/check-runs/(?P<check_run>\d+)$"),
        Endpoints._update_check_run,
    ),
    (
        "GET",
        re.compile(_REPO + r"/commits/(?P<ref>[0-9a-f]{40})/check-runs$"),
        Endpoints._list_check_runs,
    ),
    ("GET", re.compile(_REPO + r"/pulls/(?P<number>\d+)$"), Endpoints._pull),
    (
        "GET",
        re.compile(_REPO + r"/commits/(?P<ref>[0-9a-f]{40})/pulls$"),
        Endpoints._commit_pulls,
    ),
    ("GET", re.compile(_REPO + r"/issues/(?P<number>\d+)/comments$"), Endpoints._list_comments),
    ("POST", re.compile(_REPO + r"/issues/(?P<number>\d+)/comments$"), Endpoints._create_comment),
    ("GET", re.compile(_REPO + r"/issues/comments/(?P<comment>\d+)$"), Endpoints._get_comment),
    ("PATCH", re.compile(_REPO + r"/issues/comments/(?P<comment>\d+)$"), Endpoints._edit_comment),
    (
        "DELETE",
        re.compile(_REPO + r"/issues/comments/(?P<comment>\d+)$"),
        Endpoints._delete_comment,
    ),
    (
        "POST",
        re.compile(_REPO + r"/issues/comments/(?P<comment>\d+)/reactions$"),
        Endpoints._react,
    ),
    ("POST", re.compile(_REPO + r"/statuses/(?P<sha>[0-9a-f]{40})$"), Endpoints._status),
    (
        "GET",
        re.compile(_REPO + r"/commits/(?P<ref>[0-9a-f]{40})/statuses$"),
        Endpoints._list_statuses,
    ),
    (
        "GET",
        re.compile(_REPO + r"/collaborators/(?P<user>[^/]+)/permission$"),
        Endpoints._permission,
    ),
    ("GET", re.compile(_REPO + r"/actions/workflows/(?P<workflow>[^/]+)/runs$"), Endpoints._runs),
    ("GET", re.compile(_REPO + r"/actions/runs/(?P<run>\d+)$"), Endpoints._get_run),
    (
        "POST",
        re.compile(_REPO + r"/actions/runs/(?P<run>\d+)/rerun(-failed-jobs)?$"),
        Endpoints._rerun,
    ),
]
