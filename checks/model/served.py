"""The parent's handle on one long-lived sandboxed child (``model.child.serve``): ask, answer.

The child runs in a thread of the parent through the ordinary sandbox (``run_user_code``:
bubblewrap, limits, the same isolation record), with a lifetime limit far above any check's;
each request has its own deadline. Requests travel as files named on a request pipe, answers as
JSON lines on a reply pipe, both in a folder the child may write. A request that runs past its
deadline stops the child (with every process it started) and is a timeout of that request
only; a child that dies while it works is that request's error, worded as the sandbox words a
one-shot child's death. Either way the child is gone, and the session starts another for the
next request.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import select
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.isolation import Isolation
from gradgate.checks.sandbox.limits import SandboxLimits
from gradgate.checks.sandbox.outcome import Finished, Target, outcome

SERVE = "model.child.serve:serve"
LIFETIME_S = 24 * 3600.0  # the child's own limit; each request has its own, shorter one
_TICK_S = 0.05
_STOP_WAIT_S = 10.0  # how long a stopped child may take to be gone
_LAST_OUTPUT = "\n\nLast output:\n"

# Starts the child and waits for it: (the serve program's kwargs, stop) -> the value the serve
# program returned when the child ended (or the SandboxError of its death).
Starter = Callable[[Mapping[str, Any], Callable[[], bool]], Any]


class ServedChild:
    """One child; ``ask`` is safe from several threads (one request at a time)."""

    def __init__(
        self,
        start: Starter,
        folder: Path,
        *,
        revision: str,
        limits: SandboxLimits,
        python: str,
        readable: frozenset[Path],
        isolations: list[Isolation],
        imports: Sequence[str] = (),
    ) -> None:
        self.readable = readable  # what the child may read besides its tree
        self._folder, self._revision = folder, revision
        self._limits, self._python = limits, python
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._asked = False
        self._stop = threading.Event()
        self._buffer = bytearray()
        self._isolations = isolations  # where the sandbox records how the child is isolated
        requests, replies = folder / "requests", folder / "replies"
        os.mkfifo(requests, 0o600)
        os.mkfifo(replies, 0o600)
        # Read-write ends: opening never waits for the child, and the child's ends open at once.
        self._requests = os.open(requests, os.O_RDWR)
        self._replies = os.open(replies, os.O_RDWR)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gradgate-model")
        # ``imports``: what the child imports at once, before its first request comes.
        pipes = {"session": {"requests": str(requests), "replies": str(replies)},
                 "imports": list(imports)}  # fmt: skip
        self._future: Future[Any] = self._pool.submit(start, pipes, self._stop.is_set)

    @property
    def alive(self) -> bool:
        return not self._future.done() and not self._stop.is_set()

    @property
    def isolation(self) -> Isolation | None:
        """How the child is isolated; known once it has started."""
        return self._isolations[-1] if self._isolations else None

    def ask(
        self,
        program: str,
        kwargs: Mapping[str, Any],
        *,
        target: Target,
        target_path: str | None,
        seed: int | None,
        timeout_s: float,
    ) -> Any:
        """The program's JSON value on ``target`` (``target_path``: its file, absolute);
        SandboxError as a one-shot child's run would raise it, a timeout naming ``timeout_s``."""
        with self._lock:
            if not self.alive:
                if self._future.done() and not self._stop.is_set():
                    raise self._death()  # it could not start (no bubblewrap...): say why
                gone = "the model's child is gone"
                raise SandboxError(gone, kind="crash", revision=self._revision)
            number = next(self._ids)
            self._asked = True
            path = self._folder / f"request-{number}.json"
            where = {"module": target.module, "path": target_path, "attr": target.attr}
            asked = {"id": number, "program": program, "kwargs": dict(kwargs), "seed": seed,
                     "target": where}  # fmt: skip
            path.write_text(json.dumps(asked, allow_nan=True), encoding="utf-8")
            os.write(self._requests, f"{path}\n".encode())
            deadline = time.monotonic() + timeout_s
            try:
                message = self._reply(number, deadline=deadline, timeout_s=timeout_s, target=target)
            finally:
                path.unlink(missing_ok=True)
            return outcome(
                Finished(returncode=0, result=message, tail=""),
                target,
                revision=self._revision,
                limits=self._limits,
                capped=self.isolation is not None and self.isolation.memory is not None,
                python=self._python,
                isolation=self.isolation,
            )

    def _reply(self, number: int, *, deadline: float, timeout_s: float, target: Target) -> bytes:
        cap = self._limits.result_mb << 20
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = bytearray(rest)
                if json.loads(line).get("id") == number:
                    return bytes(line)
                continue  # the answer to a request whose asker gave up
            if self._future.done():
                if self._drain():
                    continue  # an answer it sent before it ended
                raise self._death()
            left = deadline - time.monotonic()
            if left <= 0 or len(self._buffer) > cap:
                raise self._stopped(timeout_s, overflowed=left > 0, target=target)
            ready, _, _ = select.select([self._replies], [], [], min(left, _TICK_S))
            if ready:
                self._buffer += os.read(self._replies, 1 << 16)

    def _drain(self) -> bool:
        """Read what is waiting on the reply pipe; whether there was anything."""
        before = len(self._buffer)
        while select.select([self._replies], [], [], 0)[0]:
            self._buffer += os.read(self._replies, 1 << 16)
        return len(self._buffer) > before

    def _death(self) -> SandboxError:
        failed = self._future.exception()
        if isinstance(failed, SandboxError):
            return failed
        if failed is not None:
            raise failed  # not user code's doing (a refused run): the check says so as it would
        return SandboxError(
            "the model's child ended before it answered", kind="crash", revision=self._revision
        )

    def _stopped(self, timeout_s: float, *, overflowed: bool, target: Target) -> SandboxError:
        """Stop the child; the request's timeout (or its too-large answer) as the sandbox words
        it for a one-shot child, with the child's last output."""
        self._stop.set()
        with contextlib.suppress(Exception):
            self._future.exception(timeout=_STOP_WAIT_S)
        failed = self._future.exception() if self._future.done() else None
        tail = str(failed).partition(_LAST_OUTPUT)[2] if failed is not None else ""
        finished = Finished(returncode=-9, result=b"", tail=tail, timed_out=not overflowed,
                            overflowed=overflowed)  # fmt: skip
        try:
            outcome(
                finished,
                target,
                revision=self._revision,
                limits=dataclasses.replace(self._limits, timeout_s=timeout_s),
                capped=False,
                python=self._python,
                isolation=self.isolation,
            )
        except SandboxError as exc:
            return exc
        return SandboxError(
            "the model's child was stopped", kind="timeout", revision=self._revision
        )

    def close(self) -> None:
        """End the child: the end of its request pipe lets it exit; stopped if it does not. One
        never asked anything (started ahead of a request that did not come) is stopped at once:
        it may still be importing torch, and nothing it does is wanted."""
        os.close(self._requests)
        if self._asked:
            with contextlib.suppress(Exception):
                self._future.exception(timeout=_STOP_WAIT_S)
        self._stop.set()
        with contextlib.suppress(Exception):
            self._future.exception()
        self._pool.shutdown(wait=True)
        os.close(self._replies)
