"""The pipeline in its own process, started without credentials (`gradgate.bot.app.runner`),
and ``spawn``, how the worker starts it.

The worker that holds the App's key and tokens never runs checks itself. It starts this module
with an environment built from an allow-list (``runner_env``): no token, no key, no git
credentials. PR code runs one level further down, in the sandbox. A request comes in as JSON on
stdin; two JSON lines go out on stdout: the plan record as soon as the plan is made (the worker
reports the checks as in progress), then the report. The runner dies with its worker: it
watches its parent and stops when the worker is gone (killed with -9, say).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from gradgate.bot.app.cache import QueueStore
from gradgate.bot.app.combine import from_wire, to_wire
from gradgate.bot.app.trust import Gpu, hold_for
from gradgate.bot.config.model import config_hash
from gradgate.bot.github.results import plan_record
from gradgate.bot.pipeline import Request, error_report, plan_request, run_request
from gradgate.bot.report.render import Report
from gradgate.checks.errors import GradgateError
from gradgate.checks.sandbox.env import PASSED_THROUGH
from pydantic import TypeAdapter

# What the runner inherits besides PASSED_THROUGH: where to write temp files, and a home.
_ALSO = ("TMPDIR", "HOME", "VIRTUAL_ENV")


@dataclass(frozen=True, slots=True)
class RunnerRequest:
    repo_path: str
    base: str
    head: str
    pr_number: int
    only: tuple[str, ...] | None = None
    user_code: bool = True
    gpu: Gpu = Gpu.RUN
    auto_to_gpu: bool = False
    python: str | None = None
    untrusted_head: bool = False  # the author may not write: bubblewrap whatever the config says
    # The result cache in the queue's own store (bot.app.cache): its SQLite file, or its Redis.
    cache_db: str | None = None
    cache_redis: str | None = None


_REQUEST = TypeAdapter(RunnerRequest)


def request_json(request: RunnerRequest) -> bytes:
    return _REQUEST.dump_json(request)


def runner_env(parent: Mapping[str, str]) -> dict[str, str]:
    """An allow-list: nothing named here can carry a credential."""
    return {name: parent[name] for name in (*PASSED_THROUGH, *_ALSO) if name in parent}


def result_store(request: RunnerRequest) -> QueueStore | None:
    """The queue's store as the result cache, where the worker named one."""
    from gradgate.bot.app.queue import sqlite_storage
    from huey.storage import RedisStorage

    if request.cache_redis is not None:
        url = request.cache_redis
        return QueueStore(lambda namespace: RedisStorage(namespace, url=url))
    if request.cache_db is not None:
        db = request.cache_db
        return QueueStore(lambda namespace: sqlite_storage(namespace, db))
    return None


def run(request: RunnerRequest, out: IO[str]) -> None:
    pipeline_request = Request(
        repo_path=Path(request.repo_path),
        base=request.base,
        head=request.head,
        only=request.only,
        pr_number=request.pr_number,
        python=request.python,
        user_code=request.user_code,
        # PR code on a machine whose worker holds the App's key: only under bubblewrap, unless
        # the config says `sandbox: auto` (as in the Action) and the author may write; a
        # fork's approved code runs under bubblewrap whatever the config says (issue 17).
        sandbox_default="require" if sys.platform.startswith("linux") else "auto",
        untrusted_head=request.untrusted_head,
        cache=result_store(request),
    )
    hold = hold_for(user_code=request.user_code, gpu=request.gpu, auto_to_gpu=request.auto_to_gpu)
    try:
        planned = plan_request(pipeline_request, for_checks=False)
        text = planned.policy.text
        record = plan_record(
            pr=request.pr_number, head_sha=planned.head_sha, base_sha=planned.base_sha,
            config_hash=config_hash(text) if text else None, config_source=planned.policy.source,
            plan=planned.plan,
        )  # fmt: skip
        out.write(json.dumps({"planned": record}) + "\n")
        out.flush()
        report = run_request(pipeline_request, hold=hold)
    except GradgateError as exc:
        report = error_report(pipeline_request, exc)
    out.write(to_wire(report) + "\n")
    out.flush()


# -- the worker's side ---------------------------------------------------------------------------

OnPlan = Callable[[dict[str, Any]], None]


class Cancelled(Exception):
    """The job was cancelled while its runner ran (a newer push): the runner was stopped."""


def spawn(
    command: list[str], request: RunnerRequest, *, cancelled: threading.Event, on_plan: OnPlan
) -> Report:
    """The runner, in its own session and environment; stopped when ``cancelled`` is set.
    ``on_plan`` gets the plan record while the checks run."""
    child = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=runner_env(os.environ),
        start_new_session=True,
    )
    assert child.stdin and child.stdout and child.stderr
    child.stdin.write(request_json(request))
    child.stdin.close()
    lines: list[bytes] = []
    errors: list[bytes] = []

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(line)
            try:
                planned = json.loads(line).get("planned")
            except (ValueError, AttributeError):
                continue  # not the plan line: the report is read below
            if planned is not None:
                on_plan(planned)

    threads = [
        threading.Thread(target=read, daemon=True),
        threading.Thread(target=lambda: errors.append(child.stderr.read()), daemon=True),  # type: ignore[union-attr]
    ]
    for thread in threads:
        thread.start()
    while threads[0].is_alive():
        threads[0].join(0.2)
        if cancelled.is_set():
            _terminate(child)
            raise Cancelled
    code = child.wait()
    threads[1].join()
    if code != 0 or not lines:
        tail = b"".join(errors).decode("utf-8", "replace").strip()[-2000:]
        raise GradgateError(f"the check runner exited with {code}: {tail}")
    return from_wire(lines[-1])


def _terminate(child: subprocess.Popen[bytes]) -> None:
    """TERM (the runner unwinds and its sandbox kills user code), then KILL the session."""
    for sig, wait_s in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            return
        try:
            child.wait(wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


# -- the runner's side ---------------------------------------------------------------------------


def _watch_parent() -> None:
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:  # the worker is gone: nobody will read the result
            os.killpg(0, signal.SIGKILL) if os.getpgrp() == os.getpid() else os._exit(1)


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds, so the sandbox's cleanup kills its children


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    threading.Thread(target=_watch_parent, daemon=True).start()
    request = _REQUEST.validate_json(sys.stdin.buffer.read())
    out, sys.stdout = sys.stdout, sys.stderr  # stdout carries the JSON lines and nothing else
    run(request, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
