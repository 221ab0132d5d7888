"""The fake GitHub: a REST server on loopback that PyGithub talks to over real HTTP.

One instance serves the whole test suite (tests/conftest.py); each test gets it reset. Every
request body and every response is checked against the OpenAPI descriptions (``openapi``);
what does not match is kept in ``violations`` and fails the test that caused it.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakegithub import openapi
from tests.fakegithub.apps import TOKEN_ROUTE, Apps, private_key
from tests.fakegithub.endpoints import DOCS, ROUTES, Answer, error
from tests.fakegithub.faults import Faults
from tests.fakegithub.render import Render
from tests.fakegithub.reviews import REVIEW_ROUTES, ReviewEndpoints
from tests.fakegithub.state import (
    Comment,
    Pull,
    Repo,
    ReviewCommentRecord,
    ReviewRecord,
    Run,
    User,
)

API_PREFIX = "/api/v3"  # like a GitHub Enterprise Server: the base URL is configurable
BOT = "github-actions[bot]"


@dataclass(frozen=True, slots=True)
class Logged:
    method: str
    path: str
    status: int
    login: str | None


Hook = Callable[[str, str], None]  # (method, path) before the request is handled


class FakeGitHub(ReviewEndpoints):
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._server = _Server(("127.0.0.1", 0), _handler(self))
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
            # token -> (login, may write, may write checks): an Action's GITHUB_TOKEN gets
            # `checks: write` only when its workflow grants it.
            self.tokens: dict[str, tuple[str, bool, bool]] = {}
            self.faults = Faults()
            self.log: list[Logged] = []
            self.violations: list[str] = []
            self.hooks: list[Hook] = []
            self.apps = Apps()
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

    def token(self, login: str = BOT, *, write: bool = True, checks: bool = False) -> str:
        with self._lock:
            self.user(login, type="Bot" if login.endswith("[bot]") else "User")
            token = f"ghs_fake{len(self.tokens):04d}{login}"
            self.tokens[token] = (login, write, checks)
            return token

    def app(self, app_id: str = "4242", *, slug: str = "gradgate") -> str:
        """Register a GitHub App; its private key (PEM), which the fake checks JWTs against."""
        with self._lock:
            pem = private_key()
            self.user(self.apps.register(app_id, slug, pem).login, type="Bot")
            return pem

    def install(self, installation_id: int, *repos: str, app_id: str = "4242") -> None:
        """Install the App on ``repos`` (owner/name)."""
        with self._lock:
            for name in repos:
                self.repo(name)
            self.apps.install(installation_id, app_id, set(repos))

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

    def reviews(self, repo: str, number: int) -> list[ReviewRecord]:
        with self._lock:
            return sorted(
                (r for r in self.repo(repo).reviews.values() if r.number == number),
                key=lambda r: r.id,
            )

    def review_comments(self, repo: str, review_id: int) -> list[ReviewCommentRecord]:
        with self._lock:
            return sorted(
                (c for c in self.repo(repo).review_comments.values() if c.review_id == review_id),
                key=lambda c: c.id,
            )

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
        app_call = TOKEN_ROUTE.match(path) if method == "POST" else None
        if app_call is not None and fault is None:
            return self._app_token(path, int(app_call["installation"]), headers, raw)
        if fault is not None and fault.after:  # carried out, then the answer is lost
            try:
                login = self._authenticate(method, path, headers)
                with self._lock:
                    self._route(method, path, query, raw, login)
            except Answer:
                pass
        if fault is not None:
            status, body, extra = fault.status, fault.body, {}
            if fault.retry_after is not None:
                extra["Retry-After"] = str(fault.retry_after)
        else:
            try:
                login = self._authenticate(method, path, headers)
                with self._lock:
                    for hook in list(self.hooks):
                        hook(method, path)
                    status, body, extra = self._route(method, path, query, raw, login)
            except Answer as answer:
                status, body, extra = answer.status, answer.body, answer.headers
        problems = openapi.check_response(method, path, status, body, fault=fault is not None)
        with self._lock:
            self.log.append(Logged(method, path, status, login))
            self.violations.extend(problems)
        data = b"" if body is None else json.dumps(body).encode()
        return status, {"Content-Type": "application/json; charset=utf-8", **extra}, data

    def _app_token(
        self, path: str, installation: int, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """An App's JWT -> an installation token (apps.py), checked like every other answer."""
        body = json.loads(raw) if raw else None
        op = openapi.operation("POST", path)
        assert op is not None
        problems = [f"POST {path} request: {p}" for p in openapi.check_request(op, body)]
        try:
            with self._lock:
                status, answer = self.apps.access_token(installation, headers, body)
        except Answer as refused:
            status, answer = refused.status, refused.body
        problems += openapi.check_response("POST", path, status, answer, fault=False)
        with self._lock:
            self.log.append(Logged("POST", path, status, "app"))
            self.violations.extend(problems)
        return (
            status,
            {"Content-Type": "application/json; charset=utf-8"},
            json.dumps(answer).encode(),
        )

    def _authenticate(self, method: str, path: str, headers: dict[str, str]) -> str:
        auth = headers.get("authorization", "")
        token = auth.split(" ", 1)[1] if " " in auth else ""
        grant = self.apps.grants.get(token)
        if grant is not None:  # an App's installation token: its repositories, until it expires
            if grant.expires < time.time():
                raise error(401, "Bad credentials")
            repo = re.match(r"^/repos/([^/]+/[^/]+)", path)
            if repo is not None and repo[1] not in grant.repos:
                raise error(404, "Not Found")
            self.tokens[token] = (grant.login, grant.write, grant.checks)
        if token not in self.tokens:
            raise error(401, "Bad credentials")
        login, write, checks = self.tokens[token]
        writing = method != "GET"
        if writing and (not write or ("/check-runs" in path and not checks)):
            raise error(403, "Resource not accessible by integration")
        return login

    def _route(
        self, method: str, path: str, query: dict[str, str], raw: bytes, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        for route_method, regex, handler in (*ROUTES, *REVIEW_ROUTES):
            match = regex.match(path)
            if route_method == method and match:
                repo = self.repos.get(f"{match['owner']}/{match['repo']}")
                if repo is None:
                    raise error(404, "Not Found")
                body = json.loads(raw) if raw else None
                op = openapi.operation(method, path)
                problems = openapi.check_request(op, body) if op is not None else []
                if problems:
                    self.violations.extend(f"{method} {path} request: {p}" for p in problems)
                    raise Answer(
                        422,
                        {
                            "message": "Validation Failed",
                            "errors": problems,
                            "documentation_url": DOCS,
                        },
                    )
                result = handler(self, repo, match, query, body, login)
                return result if len(result) == 3 else (*result, {})
        raise error(404, "Not Found")


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a worker killed with -9) is no error of the fake's."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in two writes: without this, Nagle's algorithm and the
            # client's delayed ACK add 40 ms to every answer.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

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
