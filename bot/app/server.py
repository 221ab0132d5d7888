"""The webhook server (ASGI): verify the signature, record the delivery, enqueue, answer.

Nothing slow happens here, so GitHub gets its answer in milliseconds:

    401  unsigned or mis-signed (logged; the body is not even parsed)
    400  signed, but not a delivery GitHub would send (headers, JSON, a handled event's shape)
    204  an event or action gradgate does not act on
    200  a delivery id already processed (a redelivery): nothing new is enqueued
    202  a job was enqueued
    503  the queue's store is unreachable: GitHub shows the failure and it can be redelivered

GET /health answers 200 with the queue lengths while the store answers, else 503.
"""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

from gradgate.bot.app import logs
from gradgate.bot.app.intake import Ignored, Malformed, intake, pr_number
from gradgate.bot.app.jobs import Job, Kind
from gradgate.bot.app.queue import Queues, describe
from gradgate.bot.app.signature import verify
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

MAX_BODY = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB
_DELIVERY = re.compile(r"[A-Za-z0-9-]{1,64}")
_EVENT = re.compile(r"[a-z_]{1,64}")


def _answer(status: int, reason: str, **fields: Any) -> Response:
    if status == 204:
        return Response(status_code=204)
    return JSONResponse({"reason": reason, **fields}, status_code=status)


def create_app(queues: Queues) -> Starlette:
    secret = queues.settings.webhook_secret
    log = logs.get()

    # One writer at a time in this process: SQLite writers from many threads would otherwise
    # wait on each other in SQLite's busy handler, which sleeps in steps of up to 100 ms.
    writing = threading.Lock()

    def record(job: Job) -> bool:
        """Runs in a thread: False when the delivery was already processed."""
        with writing:
            return _record(job)

    def _record(job: Job) -> bool:
        """The job is safely enqueued before its delivery counts as processed: a server killed
        in between has lost nothing (a redelivery enqueues the same job id again, harmlessly)."""
        state = queues.state
        if state.deliveries.seen(job.id):
            return False
        if job.kind is Kind.PUSH and job.head_sha:
            state.prs.set_head(job.pr.key, job.head_sha)
        queues.enqueue(job)
        state.deliveries.remember(job.id)
        return True

    def known_head(event: str, payload: dict[str, Any]) -> str | None:
        about = pr_number(event, payload)
        return queues.state.prs.head(f"{about[0]}#{about[1]}") if about else None

    async def webhook(request: Request) -> Response:
        started = time.perf_counter()
        delivery = request.headers.get("x-github-delivery", "")
        event = request.headers.get("x-github-event", "")
        extra = {"delivery": delivery[:64], "event": event[:64]}

        def done(status: int, reason: str, **fields: Any) -> Response:
            elapsed = round((time.perf_counter() - started) * 1000, 2)
            level = 30 if status in (401, 503) else 20  # WARNING, INFO
            log.log(level, reason, extra=extra | {"status": status, "elapsed_ms": elapsed} | fields)
            return _answer(status, reason, delivery=delivery[:64])

        body = await request.body()
        if len(body) > MAX_BODY:
            return done(400, "body larger than GitHub ever sends")
        if not verify(secret, body, request.headers.get("x-hub-signature-256")):
            return done(401, "missing or wrong X-Hub-Signature-256")
        if not _DELIVERY.fullmatch(delivery) or not _EVENT.fullmatch(event):
            return done(400, "missing or malformed X-GitHub-Delivery / X-GitHub-Event")
        try:
            payload = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            return done(400, "the body is not JSON (set the webhook's content type to JSON)")
        if not isinstance(payload, dict):
            return done(400, "the body is not a JSON object")
        extra["action"] = str(payload.get("action", ""))[:64]
        try:
            # Only a comment needs the PR's known head (an /ok-to-test binds to it): no thread
            # hop for the rest.
            head = (
                await run_in_threadpool(known_head, event, payload)
                if event == "issue_comment"
                else None
            )
            decision = intake(event, delivery, payload, known_head=head)
        except Malformed as exc:
            return done(400, str(exc))
        except Exception as exc:
            return done(503, f"state store unavailable: {type(exc).__name__}")
        if isinstance(decision, Ignored):
            return done(204, decision.reason)
        job_fields = {"repo": decision.pr.repo, "pr": decision.pr.number, "job": decision.id}
        try:
            fresh = await run_in_threadpool(record, decision)
        except Exception as exc:
            return done(503, f"queue unavailable: {type(exc).__name__}", **job_fields)
        if not fresh:
            return done(200, "delivery already processed", **job_fields)
        return done(202, "enqueued", queue=str(decision.queue), **job_fields)

    async def health(request: Request) -> Response:
        try:
            body = await run_in_threadpool(describe, queues)
        except Exception as exc:
            return JSONResponse({"ok": False, "error": type(exc).__name__}, status_code=503)
        return JSONResponse({"ok": True, **body})

    return Starlette(
        routes=[
            Route("/webhook", webhook, methods=["POST"]),
            Route("/", webhook, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ]
    )
