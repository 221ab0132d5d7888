"""The webhook server (ASGI): verify the signature, record the delivery, enqueue, answer.

Nothing slow happens here, so GitHub gets its answer in milliseconds:

    413  a body larger than GitHub ever sends: refused by its Content-Length before a byte of
         it is read, or, without one, as soon as the bytes read pass the cap
    401  unsigned or mis-signed (logged; the body is not even parsed)
    400  signed, but not a delivery GitHub would send (headers, JSON, a handled event's shape,
         a field's format, no App installation)
    204  an event or action gradgate does not act on
    200  a delivery id already processed (a redelivery), or a comment whose commands were
         already used (a replay under a new delivery id): nothing new is enqueued
    202  a job was enqueued
    503  the queue's store is unreachable, or too many bodies are being read at once: GitHub
         shows the failure and it can be redelivered

Bodies are read before they can be authenticated, so reading is bounded: at most READING at
once (the others wait up to READ_WAIT_S for a turn), each within READ_S and MAX_BODY.

GET /health answers 200 with the queue lengths while the store answers, else 503.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from typing import Any

from gradgate.bot.app import logs
from gradgate.bot.app.intake import RERUN_EVENTS, Ignored, Malformed, intake, pr_number
from gradgate.bot.app.jobs import Job, Kind
from gradgate.bot.app.queue import Queues, describe
from gradgate.bot.app.signature import verify
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

MAX_BODY = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB
READING = 8  # unauthenticated bodies read at once: at most READING * MAX_BODY in memory
READ_WAIT_S = 2.0  # how long a delivery waits for its turn to be read
READ_S = 30.0  # how long one body may take to arrive (a trickling sender holds a turn)
_DELIVERY = re.compile(r"[A-Za-z0-9-]{1,64}")
_EVENT = re.compile(r"[a-z_]{1,64}")
STORED = frozenset({"issue_comment", *RERUN_EVENTS})  # deliveries whose intake reads the store


def _answer(status: int, reason: str, **fields: Any) -> Response:
    if status == 204:
        return Response(status_code=204)
    return JSONResponse({"reason": reason, **fields}, status_code=status)


class _TooLarge(Exception):
    pass


async def _read_body(request: Request, limit: int) -> bytes:
    """The body, refused (``_TooLarge``) by its declared length before reading, or as soon as
    what arrived passes ``limit`` when no length was declared (chunked)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise _TooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(
    queues: Queues,
    *,
    max_body: int = MAX_BODY,
    reading: int = READING,
    read_wait_s: float = READ_WAIT_S,
) -> Starlette:
    secret = queues.settings.webhook_secret
    log = logs.get()
    turns = asyncio.Semaphore(reading)

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
        comment = job.comment_id
        if comment is not None and state.prs.comment_used(job.pr.repo, comment):
            return False  # the same comment under a new delivery id: a replay
        if job.kind is Kind.PUSH and job.head_sha:
            state.prs.set_head(job.pr.key, job.head_sha)
            at = job.at if job.at is not None else time.time()
            state.prs.record_push(job.pr.key, job.pr.repo, job.pr.number, job.head_sha, at)
        queues.enqueue(job)
        if comment is not None:
            state.prs.use_comment(job.pr.repo, comment)
        state.deliveries.remember(job.id)
        return True

    def known_head(event: str, payload: dict[str, Any]) -> str | None:
        about = pr_number(event, payload)
        return queues.state.prs.head(f"{about[0]}#{about[1]}") if about else None

    def decide(event: str, delivery: str, payload: dict[str, Any]) -> Job | Ignored:
        """Runs in a thread: only a comment needs the PR's known head (an /ok-to-test binds to
        it), and only a Re-run the PR a head belongs to; the rest needs no store."""
        head = known_head(event, payload) if event == "issue_comment" else None
        return intake(
            event, delivery, payload, known_head=head, pr_of_head=queues.state.prs.pr_of_head
        )

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

        try:
            async with asyncio.timeout(read_wait_s):
                await turns.acquire()
        except TimeoutError:
            return done(503, "too many deliveries are being read; GitHub can redeliver this one")
        try:
            async with asyncio.timeout(READ_S):
                body = await _read_body(request, max_body)
        except _TooLarge:
            return done(413, "body larger than GitHub ever sends")
        except TimeoutError:
            return done(408, "the body took too long to arrive")
        except ClientDisconnect:
            return done(400, "the sender went away before the body arrived")
        finally:
            turns.release()
        if not verify(secret, body, request.headers.get("x-hub-signature-256")):
            return done(401, "missing or wrong X-Hub-Signature-256")
        if not _DELIVERY.fullmatch(delivery) or not _EVENT.fullmatch(event):
            return done(400, "missing or malformed X-GitHub-Delivery / X-GitHub-Event")
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError):  # a decode error, or an integer of 5,000 digits
            return done(400, "the body is not JSON (set the webhook's content type to JSON)")
        if not isinstance(payload, dict):
            return done(400, "the body is not a JSON object")
        extra["action"] = str(payload.get("action", ""))[:64]
        try:
            if event in STORED:
                decision = await run_in_threadpool(decide, event, delivery, payload)
            else:
                decision = intake(event, delivery, payload)
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
