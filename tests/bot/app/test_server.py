"""`gradgate serve`'s webhook endpoint over real HTTP: real payloads, signed, on loopback."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gradgate.bot.app.jobs import Kind, Queue

from tests.bot.app.conftest import SECRET, LiveServer, on_pull_request, payload


def test_signed_pull_request_is_enqueued_with_its_head(live: LiveServer) -> None:
    answer = live.deliver("pull_request", payload("pull_request/opened"), delivery="d-opened")
    assert answer.status_code == 202, answer.text
    job = live.queues.state.ledger.get("d-opened")
    assert job is not None and job.kind is Kind.PUSH
    assert (job.pr.repo, job.pr.number, job.base_ref) == ("Codertocat/Hello-World", 2, "master")
    assert job.head_sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
    assert live.queues.pending(Queue.CPU) == 1
    assert live.queues.state.prs.head("Codertocat/Hello-World#2") == job.head_sha


def test_a_redelivery_is_answered_but_not_enqueued_again(live: LiveServer) -> None:
    body = payload("pull_request/synchronize")
    assert live.deliver("pull_request", body, delivery="same-id").status_code == 202
    again = live.deliver("pull_request", body, delivery="same-id")
    assert again.status_code == 200 and "already processed" in again.json()["reason"]
    assert live.queues.pending(Queue.CPU) == 1


def test_a_delivery_whose_job_could_not_be_enqueued_gets_503_and_its_redelivery_runs(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The delivery counts as processed only once its job is in the queue: a queue that fails
    (or a server killed in between) leaves nothing that would turn the redelivery away."""
    enqueue = live.queues.enqueue

    def down(job: object) -> None:
        raise ConnectionError("the store went away")

    monkeypatch.setattr(live.queues, "enqueue", down)
    body = payload("pull_request/opened")
    refused = live.deliver("pull_request", body, delivery="d-retry")
    assert refused.status_code == 503
    monkeypatch.setattr(live.queues, "enqueue", enqueue)
    assert live.deliver("pull_request", body, delivery="d-retry").status_code == 202
    assert live.queues.pending(Queue.CPU) == 1


def test_delivery_ids_survive_a_restart(live: LiveServer) -> None:
    live.deliver("pull_request", payload("pull_request/reopened"), delivery="before-restart")
    live.stop()
    restarted = LiveServer(type(live.queues)(live.queues.settings))
    restarted.start()
    try:
        answer = restarted.deliver(
            "pull_request", payload("pull_request/reopened"), delivery="before-restart"
        )
        assert answer.status_code == 200
    finally:
        restarted.stop()


def test_unsigned_and_mis_signed_deliveries_get_401_and_are_logged(
    live: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    logger = logging.getLogger("gradgate.app")
    logger.addHandler(caplog.handler)
    try:
        body = payload("pull_request/opened")
        wrong = live.deliver("pull_request", body, secret=b"not-the-secret", delivery="forged")
        unsigned = live.deliver(
            "pull_request", body, headers={"X-Hub-Signature-256": ""}, delivery="unsigned"
        )
    finally:
        logger.removeHandler(caplog.handler)
    assert (wrong.status_code, unsigned.status_code) == (401, 401)
    assert live.queues.pending(Queue.CPU) == 0
    rejected = [r for r in caplog.records if getattr(r, "status", None) == 401]
    assert {getattr(r, "delivery", None) for r in rejected} == {"forged", "unsigned"}


@pytest.mark.parametrize(
    ("event", "body", "reason"),
    [
        ("pull_request", b"{not json", "not JSON"),
        ("pull_request", b"[1, 2]", "not a JSON object"),
        ("pull_request", json.dumps({"action": "opened"}).encode(), "pull_request"),
        ("pull_request", b"\xff\xfe", "not JSON"),
    ],
)
def test_signed_but_malformed_bodies_get_400(
    live: LiveServer, event: str, body: bytes, reason: str
) -> None:
    answer = live.deliver(event, body)
    assert answer.status_code == 400 and reason in answer.json()["reason"]


def test_missing_delivery_or_event_headers_get_400(live: LiveServer) -> None:
    body = payload("pull_request/opened")
    assert live.deliver("pull_request", body, headers={"X-GitHub-Delivery": ""}).status_code == 400
    assert live.deliver("", body).status_code == 400


@pytest.mark.parametrize(
    ("event", "name"),
    [
        ("ping", "ping/"),
        ("installation", "installation/created"),
        ("check_suite", "check_suite/requested"),
        ("issue_comment", "issue_comment/edited.with-installation"),
        ("issue_comment", "issue_comment/created.with-installation"),  # on an issue, no command
    ],
)
def test_events_gradgate_does_not_act_on_get_204(live: LiveServer, event: str, name: str) -> None:
    body = payload(name.removesuffix(".with-installation"))
    body.setdefault("installation", {"id": 1})
    assert live.deliver(event, body).status_code == 204
    assert live.queues.pending(Queue.CPU) == 0


def test_a_closed_pr_is_enqueued_to_weigh_its_head_again_and_records_no_push(
    live: LiveServer,
) -> None:
    answer = live.deliver("pull_request", payload("pull_request/closed"), delivery="closed")
    assert answer.status_code == 202
    job = live.queues.state.ledger.get("closed")
    assert job is not None and job.kind is Kind.CLOSED and job.head_sha is not None
    assert live.queues.state.prs.head(job.pr.key) is None  # not a push: the head stays


def test_ok_to_test_on_a_pr_is_enqueued_bound_to_the_head_the_server_knew(
    live: LiveServer,
) -> None:
    live.deliver("pull_request", payload("pull_request/opened"))
    comment = on_pull_request(payload("issue_comment/created.with-installation"))
    comment["comment"] = dict(comment["comment"], body="Looks safe.\n/ok-to-test\n")
    answer = live.deliver("issue_comment", comment, delivery="ok")
    assert answer.status_code == 202
    job = live.queues.state.ledger.get("ok")
    assert job is not None and job.kind is Kind.COMMENT
    assert job.known_head == "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
    assert (job.sender, job.pr.number) == ("Codertocat", 2)


def test_health_answers_with_the_queue_lengths(live: LiveServer) -> None:
    live.deliver("pull_request", payload("pull_request/opened"))
    health = live.client.get("/health")
    assert health.status_code == 200
    assert health.json()["queues"] == {"cpu": 1, "gpu": 0}


def test_serve_refuses_to_start_without_a_webhook_secret(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADGATE_")}
    done = subprocess.run(
        [sys.executable, "-m", "gradgate.bot", "serve", "--data-dir", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "GRADGATE_WEBHOOK_SECRET" in done.stderr
    assert not (tmp_path / "queue.db").exists()


def test_serve_answers_signed_deliveries_as_a_command(tmp_path: Path) -> None:
    from tests.bot.app.conftest import free_port

    port = free_port()
    env = dict(os.environ, GRADGATE_WEBHOOK_SECRET=SECRET.decode())
    proc = subprocess.Popen(
        [sys.executable, "-m", "gradgate.bot", "serve", "--port", str(port),
         "--data-dir", str(tmp_path)],
        env=env,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        import httpx

        client = LiveServer.__new__(LiveServer)
        client.client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5)
        deadline = __import__("time").monotonic() + 30
        while True:
            try:
                answer = client.deliver("pull_request", payload("pull_request/opened"))
                break
            except httpx.TransportError:
                assert __import__("time").monotonic() < deadline, "serve did not start"
                __import__("time").sleep(0.1)
        assert answer.status_code == 202
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    log_lines = [json.loads(line) for line in err.decode().splitlines() if line.startswith("{")]
    assert any(line.get("status") == 202 and line.get("delivery") for line in log_lines)
