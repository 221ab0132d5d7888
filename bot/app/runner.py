"""The pipeline in its own process, started without credentials (`gradgate.bot.app.runner`).

The worker that holds the App's key and tokens never runs checks itself. It starts this module
with an environment built from an allow-list (``runner_env``): no token, no key, no git
credentials. PR code runs one level further down, in the sandbox. A request comes in as JSON on
stdin; the report goes out as JSON on stdout. The runner dies with its worker: it watches its
parent and stops when the worker is gone (killed with -9, say).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gradgate.bot.app.combine import to_wire
from gradgate.bot.app.trust import Gpu, hold_for
from gradgate.bot.pipeline import Request, error_report, run_request
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


_REQUEST = TypeAdapter(RunnerRequest)


def request_json(request: RunnerRequest) -> bytes:
    return _REQUEST.dump_json(request)


def runner_env(parent: Mapping[str, str]) -> dict[str, str]:
    """An allow-list: nothing named here can carry a credential."""
    return {name: parent[name] for name in (*PASSED_THROUGH, *_ALSO) if name in parent}


def run(request: RunnerRequest) -> str:
    pipeline_request = Request(
        repo_path=Path(request.repo_path),
        base=request.base,
        head=request.head,
        only=request.only,
        pr_number=request.pr_number,
        python=request.python,
        user_code=request.user_code,
    )
    hold = hold_for(user_code=request.user_code, gpu=request.gpu, auto_to_gpu=request.auto_to_gpu)
    try:
        report = run_request(pipeline_request, hold=hold)
    except GradgateError as exc:
        report = error_report(pipeline_request, exc)
    return to_wire(report)


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
    out, sys.stdout = sys.stdout, sys.stderr  # stdout carries the report and nothing else
    out.write(run(request))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
