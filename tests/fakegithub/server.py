"""The fake GitHub: a REST server on loopback that PyGithub talks to over real HTTP.

One instance serves the whole test suite (tests/conftest.py); each test gets it reset. Every
request body and every response is checked against the OpenAPI descriptions (``openapi``);
what does not match is kept in ``violations`` and fails the test that caused it.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakegithub import openapi
from tests.fakegithub.faults import Faults
from tests.fakegithub.state import (
    Comment,
    Pull,
    Reaction,
    Render,
    Repo,
    Run,
    StatusRecord,
    User,
)

API_PREFIX = "/api/v3"  # like a GitHub Enterprise Server: the base URL is configurable
DOCS = "https://docs.github.com/rest"
BOT = "github-actions[bot]"
COMMENT_LIMIT = 65_536  # GitHub: "Body is too long (maximum is 65536 characters)"
STATUS_LIMIT = 140


@dataclass(frozen=True, slots=True)
class Logged:
    method: str
    path: str
    status: int
    login: str | None


class _Answer(Exception):
    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None):
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}


def _error(status: int, message: str) -> _Answer:
    return _Answer(status, {"message": message, "documentation_url": DOCS})


Hook = Callable[[str, str], None]  # (method, path) before the request is handled


class FakeGitHub:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        host, port = self._server.server_address[:2]
        self.web = f"http://{host}:{port}"
        self.url = f"{self.web}{API_PREFIX}"  # what PyGithub is given as its base URL
        self.render = Render(self.url, self.web)
        self.reset()

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reset(self) -> None:
        with self._lock:
            self.users: dict[str, User] = {}
            self.repos: dict[str, Repo] = {}
            self.tokens: dict[str, tuple[str, bool]] = {}  # token -> (login, may write)
            self.faults = Faults()
            self.log: list[Logged] = []
            self.violations: list[str] = []
            self.hooks: list[Hook] = []
            self._ids = 100
            self._clock = 0
            self.user(BOT, type="Bot")

    # -- the world, for tests ----------------------------------------------------------------

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def tick(self) -> int:
        self._clock += 1
        return self._clock

    def user(self, login: str, *, type: str = "User") -> User:
        with self._lock:
            if login not in self.users:
                self.users[login] = User(login=login, id=self._next_id(), type=type)
            return self.users[login]

    def repo(self, full_name: str) -> Repo:
        with self._lock:
            if full_name not in self.repos:
                self.user(full_name.split("/")[0])
                self.repos[full_name] = Repo(full_name=full_name, id=self._next_id())
            return self.repos[full_name]

    def token(self, login: str = BOT, *, write: bool = True) -> str:
        with self._lock:
            self.user(login, type="Bot" if login.endswith("[bot]") else "User")
            token = f"ghs_fake{len(self.tokens):04d}{login}"
            self.tokens[token] = (login, write)
            return token

    def open_pull(
        self, repo: str, number: int, *, head: str, base: str, author: str, **kw: Any
    ) -> Pull:
        with self._lock:
            self.user(author)
            if kw.get("head_repo"):
                self.user(kw["head_repo"].split("/")[0])
            pull = Pull(number=number, head_sha=head, base_sha=base, author=author, **kw)
            self.repo(repo).pulls[number] = pull
            return pull

    def add_comment(self, repo: str, number: int, body: str, *, author: str) -> Comment:
        with self._lock:
            self.user(author, type="Bot" if author.endswith("[bot]") else "User")
            now = self.tick()
            comment = Comment(self._next_id(), number, body, author, now, now)
            self.repo(repo).comments[comment.id] = comment
            return comment

    def add_run(self, repo: str, **kw: Any) -> Run:
        with self._lock:
            run = Run(id=self._next_id(), **kw)
            self.repo(repo).runs[run.id] = run
            return run

    def comments(self, repo: str, number: int, *, by: str | None = BOT) -> list[Comment]:
        with self._lock:
            return [
                c
                for c in sorted(self.repo(repo).comments.values(), key=lambda c: c.id)
                if c.number == number and (by is None or c.author == by)
            ]

    def requests(self, method: str | None = None, pattern: str = "") -> list[Logged]:
        with self._lock:
            return [
                r
                for r in self.log
                if (method is None or r.method == method) and re.search(pattern, r.path)
            ]

    # -- HTTP --------------------------------------------------------------------------------

    def handle(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        split = urlsplit(target)
        path = split.path.removeprefix(API_PREFIX)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        fault = self.faults.next_fault(method, path)
        if self.faults.delay_s:
            time.sleep(self.faults.delay_s)
        login = None
        if fault is not None:
            status, body, extra = fault.status, fault.body, {}
            if fault.retry_after is not None:
                extra["Retry-After"] = str(fault.retry_after)
        else:
            try:
                login = self._authenticate(method, headers)
                with self._lock:
                    for hook in list(self.hooks):
                        hook(method, path)
                    status, body, extra = self._route(method, path, query, raw, login)
            except _Answer as answer:
                status, body, extra = answer.status, answer.body, answer.headers
        problems = openapi.check_response(method, path, status, body, fault=fault is not None)
        with self._lock:
            self.log.append(Logged(method, path, status, login))
            self.violations.extend(problems)
        data = b"" if body is None else json.dumps(body).encode()
        return status, {"Content-Type": "application/json; charset=utf-8", **extra}, data

    def _authenticate(self, method: str, headers: dict[str, str]) -> str:
        auth = headers.get("authorization", "")
        token = auth.split(" ", 1)[1] if " " in auth else ""
        if token not in self.tokens:
            raise _error(401, "Bad credentials")
        login, write = self.tokens[token]
        if method != "GET" and not write:
            raise _error(403, "Resource not accessible by integration")
        return login

    def _route(
        self, method: str, path: str, query: dict[str, str], raw: bytes, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        for route_method, regex, handler in _ROUTES:
            match = regex.match(path)
            if route_method == method and match:
                repo = self.repos.get(f"{match['owner']}/{match['repo']}")
                if repo is None:
                    raise _error(404, "Not Found")
                body = json.loads(raw) if raw else None
                op = openapi.operation(method, path)
                problems = openapi.check_request(op, body) if op is not None else []
                if problems:
                    self.violations.extend(f"{method} {path} request: {p}" for p in problems)
                    raise _Answer(
                        422,
                        {
                            "message": "Validation Failed",
                            "errors": problems,
                            "documentation_url": DOCS,
                        },
                    )
                result = handler(self, repo, match, query, body, login)
                return result if len(result) == 3 else (*result, {})
        raise _error(404, "Not Found")

    # -- endpoints ---------------------------------------------------------------------------

    def _pull(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        pull = repo.pulls.get(int(m["number"]))
        if pull is None:
            raise _error(404, "Not Found")
        return 200, self.render.pull(repo, pull, self.users)

    def _list_comments(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        number = int(m["number"])
        if number not in repo.pulls:
            raise _error(404, "Not Found")
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
            raise _error(404, "Not Found")
        self._fits_comment(body["body"])
        now = self.tick()
        comment = Comment(self._next_id(), number, body["body"], login, now, now)
        repo.comments[comment.id] = comment
        return 201, self.render.comment(repo, comment, self.users)

    def _comment(self, repo: Repo, m: re.Match[str]) -> Comment:
        comment = repo.comments.get(int(m["comment"]))
        if comment is None:
            raise _error(404, "Not Found")
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
            raise _error(403, "Resource not accessible by integration")
        self._fits_comment(body["body"])
        comment.body = body["body"]
        comment.updated = self.tick()
        return 200, self.render.comment(repo, comment, self.users)

    def _delete_comment(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        comment = self._comment(repo, m)
        if comment.author != login and repo.collaborators.get(login) != "admin":
            raise _error(403, "Resource not accessible by integration")
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
            raise _Answer(
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

    def _permission(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        user = m["user"]
        if user not in self.users:
            raise _error(404, "Not Found")
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
            raise _error(404, "Not Found")
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
            raise _error(403, "This workflow run is not completed")
        if failed_only and run.conclusion == "success":
            raise _error(403, "This workflow run has no failed jobs")
        run.reruns.append("failed" if failed_only else "all")
        run.status, run.conclusion = "queued", None
        return 201, {}

    # -- helpers -----------------------------------------------------------------------------

    def _fits_comment(self, text: str) -> None:
        if len(text) > COMMENT_LIMIT:
            raise _Answer(
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


_REPO = r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
_ROUTES: list[tuple[str, re.Pattern[str], Callable[..., Any]]] = [
    ("GET", re.compile(_REPO + r"/pulls/(?P<number>\d+)$"), FakeGitHub._pull),
    ("GET", re.compile(_REPO + r"/issues/(?P<number>\d+)/comments$"), FakeGitHub._list_comments),
    ("POST", re.compile(_REPO + r"/issues/(?P<number>\d+)/comments$"), FakeGitHub._create_comment),
    ("GET", re.compile(_REPO + r"/issues/comments/(?P<comment>\d+)$"), FakeGitHub._get_comment),
    ("PATCH", re.compile(_REPO + r"/issues/comments/(?P<comment>\d+)$"), FakeGitHub._edit_comment),
    (
        "DELETE",
        re.compile(_REPO + r"/issues/comments/(?P<comment>\d+)$"),
        FakeGitHub._delete_comment,
    ),
    (
        "POST",
        re.compile(_REPO + r"/issues/comments/(?P<comment>\d+)/reactions$"),
        FakeGitHub._react,
    ),
    ("POST", re.compile(_REPO + r"/statuses/(?P<sha>[0-9a-f]{40})$"), FakeGitHub._status),
    (
        "GET",
        re.compile(_REPO + r"/collaborators/(?P<user>[^/]+)/permission$"),
        FakeGitHub._permission,
    ),
    ("GET", re.compile(_REPO + r"/actions/workflows/(?P<workflow>[^/]+)/runs$"), FakeGitHub._runs),
    ("GET", re.compile(_REPO + r"/actions/runs/(?P<run>\d+)$"), FakeGitHub._get_run),
    (
        "POST",
        re.compile(_REPO + r"/actions/runs/(?P<run>\d+)/rerun(-failed-jobs)?$"),
        FakeGitHub._rerun,
    ),
]


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, out_headers, data = fake.handle(self.command, self.path, headers, raw)
            self.send_response(status)
            for key, value in out_headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

    return Handler
