"""Benchmark: how fast `gradgate serve` acknowledges webhooks, and that none is lost.

Starts `gradgate serve` (uvicorn, the SQLite queue) as a subprocess on loopback and sends real,
signed `pull_request` deliveries (a fixture payload, each with its own delivery id and head)
open-loop at RATE per second for SECONDS, timing each answer. Lost: deliveries answered
otherwise than 202, plus those missing from the queue afterwards. Baseline: the same server's
`GET /health` (the HTTP round trip and a queue read, without verify/record/enqueue).

Not measured here yet: the fault run (kill -9 a worker mid-job, count completed jobs and
comments per PR), which needs the workers' GitHub App client.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = (
    ROOT / "tests" / "fixtures" / "github" / "webhooks" / "pull_request" / "opened.payload.json"
)
RATE, SECONDS = 200, 30
TARGET_P99_MS = 50.0
SECRET = "bench-webhook-secret-0123456789"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 1000) - 1] if len(values) > 1 else values[0]


def main() -> int:
    from gradgate.bot.app.signature import sign

    payload = json.loads(FIXTURE.read_text(encoding="utf-8"))
    port = _port()
    with tempfile.TemporaryDirectory() as data:
        env = dict(os.environ, GRADGATE_WEBHOOK_SECRET=SECRET)
        server = subprocess.Popen(
            [sys.executable, "-m", "gradgate.bot", "serve", "--port", str(port),
             "--data-dir", data],
            env=env,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        local = threading.local()

        def client() -> httpx.Client:
            if not hasattr(local, "c"):
                local.c = httpx.Client(base_url=base, timeout=10)
            return local.c  # type: ignore[no-any-return]

        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    httpx.get(f"{base}/health", timeout=1)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise SystemExit("gradgate serve did not start") from None
                    time.sleep(0.1)

            def send(n: int) -> tuple[float, int]:
                body = dict(payload, number=n)
                body["pull_request"] = dict(payload["pull_request"], number=n)
                raw = json.dumps(body).encode()
                headers = {
                    "X-GitHub-Event": "pull_request",
                    "X-GitHub-Delivery": str(uuid.uuid4()),
                    "X-Hub-Signature-256": sign(SECRET.encode(), raw),
                    "Content-Type": "application/json",
                }
                started = time.perf_counter()
                answer = client().post("/webhook", content=raw, headers=headers)
                return (time.perf_counter() - started) * 1000, answer.status_code

            def probe(_: int) -> tuple[float, int]:
                started = time.perf_counter()
                answer = client().get("/health")
                return (time.perf_counter() - started) * 1000, answer.status_code

            def paced(fn: object, count: int) -> list[tuple[float, int]]:
                with ThreadPoolExecutor(32) as pool:
                    futures: list[Future[tuple[float, int]]] = []
                    t0 = time.monotonic()
                    for n in range(count):
                        delay = t0 + n / RATE - time.monotonic()
                        if delay > 0:
                            time.sleep(delay)
                        futures.append(pool.submit(fn, n))  # type: ignore[arg-type]
                    return [f.result() for f in futures]

            baseline = paced(probe, RATE * 5)
            results = paced(send, RATE * SECONDS)
            queued = httpx.get(f"{base}/health", timeout=10).json()["queues"]["cpu"]
        finally:
            server.terminate()
            server.wait(30)
    latencies = [ms for ms, _ in results]
    refused = sum(1 for _, status in results if status != 202)
    lost = refused + max(0, len(results) - refused - int(queued))
    p50, p99 = _percentile(latencies, 0.5), _percentile(latencies, 0.99)
    base_p50 = _percentile([ms for ms, _ in baseline], 0.5)
    print(f"sent {len(results)} deliveries at {RATE}/s; {queued} in the queue afterwards")
    print(f"ack latency p50 {p50:.2f} ms, p99 {p99:.2f} ms; GET /health p50 {base_p50:.2f} ms")
    print(f"figure: webhook_ack_p50_ms = {p50:.2f} (target <= {TARGET_P99_MS}) "
          f"{'ok' if p50 <= TARGET_P99_MS else 'MISSED'}")  # fmt: skip
    print(f"figure: webhook_ack_p99_ms = {p99:.2f} (target <= {TARGET_P99_MS}) "
          f"{'ok' if p99 <= TARGET_P99_MS else 'MISSED'}")  # fmt: skip
    print(f"figure: webhook_ack_p50_vs_health = {p50 / base_p50:.2f} (target <= 10.0) "
          f"{'ok' if p50 / base_p50 <= 10.0 else 'MISSED'}")  # fmt: skip
    print(f"figure: webhooks_lost = {lost} (target <= 0) {'ok' if lost == 0 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
