"""The parent's handle on one long-lived sandboxed child (``model.child.serve``): ask, answer.

The child runs in a thread of the parent through the ordinary sandbox (``run_user_code``:
bubblewrap, limits, the same isolation record), with a lifetime limit far above any check's;
each request has its own deadline. Requests travel as JSON lines on a request pipe, answers as
JSON lines on a reply pipe: two pipes the parent makes and the child inherits (``fds``), so no
file the child can write is ever opened by the parent by name, and no other child holds them.
The child's exchange, where a program leaves files for the parent (the base run's weights for
the head run), is a folder in its own /tmp, under its disk cap; ``take`` copies one of them out
over the reply pipe, at most the cap's size, into a file the parent opened. A request that runs
past its deadline stops the child (with every process it started) and is a timeout of that
request only; a child that dies while it works is that request's error, worded as the sandbox
words a one-shot child's death. Either way the child is gone, and the session starts another
for the next request.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
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
_PIPE_BYTES = 1 << 20  # the reply pipe's size, asked for: a file taken out moves in large reads

# Starts the child and waits for it: (the serve program's kwargs, the descriptors it inherits,
# stop) -> the value the serve program returned when the child ended (or its SandboxError).
Starter = Callable[[Mapping[str, Any], Sequence[int], Callable[[], bool]], Any]


class ServedChild:
    """One child; ``ask`` and ``take`` are safe from several threads (one request at a time)."""

    def __init__(
        self,
        start: Starter,
        *,
        revision: str,
        limits: SandboxLimits,
        python: str,
        readable: frozenset[Path],
        isolations: list[Isolation],
        imports: Sequence[str] = (),
    ) -> None:
        self.readable = readable  # what the child may read besides its tree
        self._revision = revision
        self._limits, self._python = limits, python
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._asked = False
        self._stop = threading.Event()
        self._buffer = bytearray()
        self._isolations = isolations  # where the sandbox records how the child is isolated
        # The child reads requests from one pipe and writes replies to the other; the parent
        # keeps the other ends. Its own copies of the child's ends go when the child has ended.
        theirs_requests, self._requests = os.pipe()
        self._replies, theirs_replies = os.pipe()
        self._theirs = (theirs_requests, theirs_replies)
        os.set_blocking(self._requests, False)  # a child that does not read is not waited for
        with contextlib.suppress(OSError):  # the system's limit on pipe sizes: the default
            fcntl.fcntl(self._replies, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gradgate-model")
        # ``imports``: what the child imports at once, before its first request comes.
        pipes = {"session": {"requests": theirs_requests, "replies": theirs_replies},
                 "imports": list(imports)}  # fmt: skip
        self._future: Future[Any] = self._pool.submit(start, pipes, self._theirs, self._stop.is_set)

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
        return self.ask_files(program, kwargs, target=target, target_path=target_path,
                              seed=seed, timeout_s=timeout_s)[0]  # fmt: skip

    def ask_files(
        self,
        program: str,
        kwargs: Mapping[str, Any],
        *,
        target: Target,
        target_path: str | None,
        seed: int | None,
        timeout_s: float,
    ) -> tuple[Any, list[str] | None]:
        """What :meth:`ask` gives, and the tree's files the child had imported when it answered
        (paths relative to the tree; None when it did not say)."""
        where = {"module": target.module, "path": target_path, "attr": target.attr}
        with self._lock:
            message = self._request(
                {"program": program, "kwargs": dict(kwargs), "seed": seed, "target": where},
                target=target,
                timeout_s=timeout_s,
            )
            value = self._judged(message, target)
        try:
            files = json.loads(message).get("files")
        except (ValueError, RecursionError, AttributeError):
            files = None
        ok = isinstance(files, list) and all(isinstance(f, str) for f in files)
        return value, files if ok else None

    def take(self, name: str, into: int, *, target: Target, timeout_s: float) -> int:
        """Copy the file ``name`` that a program left in the child's exchange into the parent's
        descriptor ``into``; how many bytes. At most the child's disk cap: it cannot have
        written more. SandboxError of the child's revision when it has no such regular file,
        sends more, or does not send it all before ``timeout_s``."""
        with self._lock:
            deadline = time.monotonic() + timeout_s
            header = json.loads(self._request({"take": name}, target=target, timeout_s=timeout_s))
            if header.get("ok") is not True:
                failed = header.get("error")
                failed = failed if isinstance(failed, dict) else {}
                raise self._error(
                    f"could not hand over `{name}` from its exchange: {failed.get('message')}",
                    kind="disk" if failed.get("disk") else "sandbox",
                )
            value = header.get("value")
            size = value.get("bytes") if isinstance(value, dict) else None
            cap = None if self._limits.disk_mb is None else self._limits.disk_mb << 20
            if not isinstance(size, int) or size < 0 or (cap is not None and size > cap):
                self._stopped(timeout_s, overflowed=True, target=target)
                raise self._error(
                    f"offered {size!r} bytes for `{name}`, more than its disk cap holds",
                    kind="disk",
                )
            self._copy_out(size, into, deadline=deadline, timeout_s=timeout_s, target=target)
            return size

    def _request(self, body: dict[str, Any], *, target: Target, timeout_s: float) -> bytes:
        """Send one request; its answer's line."""
        if not self.alive:
            if self._future.done() and not self._stop.is_set():
                raise self._death()  # it could not start (no bubblewrap...): say why
            raise self._error("is gone", kind="crash")
        number = next(self._ids)
        self._asked = True
        line = json.dumps({"id": number, **body}, allow_nan=True).encode() + b"\n"
        deadline = time.monotonic() + timeout_s
        return self._reply(number, line, deadline=deadline, timeout_s=timeout_s, target=target)

    def _judged(self, message: bytes, target: Target) -> Any:
        return outcome(
            Finished(returncode=0, result=message, tail=""),
            target,
            revision=self._revision,
            limits=self._limits,
            capped=self.isolation is not None and self.isolation.memory is not None,
            python=self._python,
            isolation=self.isolation,
        )

    def _reply(
        self, number: int, line: bytes, *, deadline: float, timeout_s: float, target: Target
    ) -> bytes:
        """Write ``line`` on the request pipe as the child reads it, and read replies until the
        one with id ``number``."""
        cap = self._limits.result_mb << 20
        pending = memoryview(line)
        while True:
            answer, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = bytearray(rest)
                if self._id_of(answer, timeout_s=timeout_s, target=target) == number:
                    return bytes(answer)
                continue  # an answer sent by something else than the serve loop: not ours
            if self._future.done():
                if self._drain():
                    continue  # an answer it sent before it ended
                raise self._death()
            left = deadline - time.monotonic()
            if left <= 0 or len(self._buffer) > cap:
                raise self._stopped(timeout_s, overflowed=left > 0, target=target)
            writing = [self._requests] if pending else []
            ready, can_write, _ = select.select([self._replies], writing, [], min(left, _TICK_S))
            if can_write:
                with contextlib.suppress(BlockingIOError):
                    pending = pending[os.write(self._requests, pending) :]
            if ready:
                self._buffer += os.read(self._replies, 1 << 16)

    def _id_of(self, line: bytes | bytearray, *, timeout_s: float, target: Target) -> Any:
        """The id of one line of the reply pipe; a line that is no JSON object is the child's
        own doing (nothing else writes there): it is stopped, and the request fails."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            self._stopped(timeout_s, overflowed=True, target=target)
            raise self._error("sent a malformed answer on its reply pipe", kind="output")
        return message.get("id")

    def _copy_out(
        self, size: int, into: int, *, deadline: float, timeout_s: float, target: Target
    ) -> None:
        """Move ``size`` bytes from the reply pipe (what the buffer holds first) to ``into``."""
        left = size
        while left:
            if self._buffer:
                chunk = bytes(self._buffer[:left])
                del self._buffer[: len(chunk)]
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._stopped(timeout_s, overflowed=False, target=target)
                ready, _, _ = select.select([self._replies], [], [], min(remaining, _TICK_S))
                if not ready:
                    if self._future.done():
                        raise self._death()
                    continue
                chunk = os.read(self._replies, min(left, _PIPE_BYTES))
            view = memoryview(chunk)
            while view:
                view = view[os.write(into, view) :]
            left -= len(chunk)

    def _drain(self) -> bool:
        """Read what is waiting on the reply pipe; whether there was anything."""
        before = len(self._buffer)
        while select.select([self._replies], [], [], 0)[0]:
            self._buffer += os.read(self._replies, 1 << 16)
        return len(self._buffer) > before

    def _error(self, text: str, *, kind: str) -> SandboxError:
        return SandboxError(f"the {self._revision} revision's model child {text}", kind=kind,
                            revision=self._revision)  # fmt: skip

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
        for fd in (self._replies, *self._theirs):
            os.close(fd)
