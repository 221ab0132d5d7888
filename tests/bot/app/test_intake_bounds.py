"""What `gradgate serve` reads before a delivery is authenticated, and what it lets through after
(issue 18, issue 17 point 4): bodies refused by size before they are read, a bounded number read
at once, JSON that Python cannot parse answered 400, every field checked by its format, and a
comment without an App installation refused at intake. Real uvicorn on loopback, raw sockets
where a well-behaved client could not send the attack."""

from __future__ import annotations

import copy
import json
import socket
import uuid
from typing import Any

import pytest
from gradgate.bot.app.jobs import Queue
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.settings import AppSettings
from gradgate.bot.app.signature import sign

from tests.bot.app.conftest import SECRET, LiveServer, on_pull_request, payload

MB = 1024 * 1024


def _headers(length: str | None, *, chunked: bool = False) -> bytes:
    lines = [
        "POST /webhook HTTP/1.1",
        "Host: 127.0.0.1",
        "X-GitHub-Event: pull_request",
        f"X-GitHub-Delivery: {uuid.uuid4()}",
        "X-Hub-Signature-256: sha256=" + "0" * 64,
        "Content-Type: application/json",
    ]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _status(sock: socket.socket) -> int:
    """The status of the answer; a server still reading the body answers nothing (timeout)."""
    first = sock.recv(4096).split(b"\r\n", 1)[0]
    return int(first.split()[1])


def _open(live: LiveServer, head: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", live.port), timeout=20)
    sock.sendall(head)
    return sock


def test_a_body_declared_larger_than_github_sends_is_refused_before_it_is_read(
    live: LiveServer,
) -> None:
    with _open(live, _headers(str(400 * MB))) as sock:  # and not one byte of the body follows
        assert _status(sock) == 413
    assert live.queues.pending(Queue.CPU) == 0


def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_cap(live: LiveServer) -> None:
    with _open(live, _headers(None, chunked=True)) as sock:
        chunk = b"%x\r\n%s\r\n" % (MB, b" " * MB)
        try:
            for _ in range(26):  # 26 MB and never the closing chunk: the server must not wait
                sock.sendall(chunk)
        except OSError:
            pass  # it answered and closed while we were still sending: what we want
        assert _status(sock) == 413


def test_only_a_few_unauthenticated_bodies_are_read_at_once(settings: AppSettings) -> None:
    live = LiveServer(Queues(settings, serving=True), reading=2, read_wait_s=0.2)
    live.start()
    try:
        stalled = [_open(live, _headers("1000") + b"{") for _ in range(2)]
        answers = []
        for _ in range(200):  # until both stalled bodies hold their turn
            answers.append(live.deliver("pull_request", payload("pull_request/opened")).status_code)
            if answers[-1] == 503:
                break
        assert answers[-1] == 503, answers
        for sock in stalled:
            sock.close()
        for _ in range(200):  # their turns come back when they go
            if live.deliver("pull_request", payload("pull_request/opened")).status_code == 202:
                break
        else:
            pytest.fail("the turns of closed connections never came back")
    finally:
        live.stop()


def test_a_signed_body_with_a_5000_digit_integer_gets_400_not_500(live: LiveServer) -> None:
    body = b'{"action": "opened", "number": ' + b"9" * 5000 + b"}"
    answer = live.deliver("pull_request", body)
    assert answer.status_code == 400 and "not JSON" in answer.json()["reason"]


def test_a_comment_without_an_app_installation_is_refused_at_intake(live: LiveServer) -> None:
    comment = on_pull_request(payload("issue_comment/created"))  # GitHub's, for a plain webhook
    comment["comment"]["body"] = "/ok-to-test"
    answer = live.deliver("issue_comment", comment)
    assert answer.status_code == 400 and "installation" in answer.json()["reason"]
    assert live.queues.pending(Queue.CPU) == 0


def _set(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    body = copy.deepcopy(body)
    *parents, last = path.split(".")
    node = body
    for part in parents:
        node = node[part]
    node[last] = value
    return body


OPENED = payload("pull_request/opened")
COMMENT = on_pull_request(payload("issue_comment/created.with-installation"))
COMMENT["comment"]["body"] = "/recheck"
RERUN = payload("check_run/rerequested")


@pytest.mark.parametrize(
    ("event", "body", "field"),
    [
        ("pull_request", _set(OPENED, "pull_request.head.sha", "EC26C3E5" + "0" * 32), "sha"),
        ("pull_request", _set(OPENED, "pull_request.head.sha", "ec26c3e"), "sha"),
        (
            "pull_request",
            _set(OPENED, "pull_request.head.sha", "![x](https://e.example/p.png)"),
            "sha",
        ),
        ("pull_request", _set(OPENED, "pull_request.base.sha", "0" * 39 + "\n"), "sha"),
        ("pull_request", _set(OPENED, "pull_request.number", -2), "number"),
        ("pull_request", _set(OPENED, "pull_request.number", True), "number"),
        ("pull_request", _set(OPENED, "pull_request.number", "2"), "number"),
        ("pull_request", _set(OPENED, "pull_request.user.login", "<img src=x>"), "login"),
        ("pull_request", _set(OPENED, "pull_request.user.login", "-alice"), "login"),
        ("pull_request", _set(OPENED, "repository.full_name", "acme/model/../x"), "full_name"),
        ("pull_request", _set(OPENED, "repository.full_name", "acme/.."), "full_name"),
        ("pull_request", _set(OPENED, "pull_request.base.ref", "main:refs/heads/x"), "ref"),
        ("pull_request", _set(OPENED, "pull_request.base.ref", "--upload-pack=x"), "ref"),
        ("pull_request", _set(OPENED, "installation.id", 0), "installation"),
        ("issue_comment", _set(COMMENT, "comment.id", 0), "id"),
        ("issue_comment", _set(COMMENT, "comment.user.login", "@acme/owners"), "login"),
        ("issue_comment", _set(COMMENT, "issue.number", 2.5), "number"),
        ("check_run", _set(RERUN, "check_run.head_sha", "HEAD"), "head_sha"),
        ("check_run", _set(RERUN, "sender.login", "a" * 40), "login"),
    ],
)
def test_a_field_that_is_not_in_its_format_is_refused(
    live: LiveServer, event: str, body: dict[str, Any], field: str
) -> None:
    answer = live.deliver(event, json.dumps(body).encode())
    assert answer.status_code == 400, answer.text
    assert field in answer.json()["reason"]
    assert live.queues.pending(Queue.CPU) == 0


def test_the_signature_is_checked_over_exactly_the_bytes_read(live: LiveServer) -> None:
    body = json.dumps(OPENED).encode()
    headers = {"X-Hub-Signature-256": sign(SECRET, body + b" ")}
    assert live.deliver("pull_request", body, headers=headers).status_code == 401
