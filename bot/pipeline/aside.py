"""Work done aside, on another core, by a forked copy of this process, while this one goes on.

A plan is CPU-bound Python on one core while the machine's second core idles: git has finished.
`aside(work)` forks; the copy runs ``work`` on what it inherited (no set-up, no copy of the input),
writes its answer to a pipe and exits at once (`os._exit`: no atexit handler runs, no buffer of
the parent's is flushed twice). `Aside.result` reads it. The answer travels as `marshal` writes
it (lists of 100,000 ints in a millisecond, where JSON takes twenty): plain data, read only from
this process's own copy.

Only where that is safe and cheap: on Linux, with this thread alone (a lock another thread held at
the fork would never be released in the copy). Anything else -- no fork here, a copy that failed,
was killed or wrote nothing whole -- is None, and the caller does the work itself: the answer
never depends on whether it was done aside.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any


class Aside:
    """A forked copy working on an answer (`result`)."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd

    def result(self) -> Any | None:
        """The copy's answer, once it is done; None where it failed."""
        with open(self.fd, "rb") as answer:  # (closes the pipe)
            data = answer.read()
        self.pid, status = 0, os.waitpid(self.pid, 0)[1]
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError):  # (the copy exits 0 only once it wrote it all)
            return None

    def drop(self) -> None:
        """Stop the copy and reap it, where its answer is no longer wanted."""
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.close(self.fd)
            os.waitpid(self.pid, 0)
            self.pid = 0


def forkable() -> bool:
    """Whether `aside` can make a copy here: on Linux, with this thread alone."""
    return sys.platform == "linux" and threading.active_count() == 1


@contextlib.contextmanager
def aside(work: Callable[[], Any]) -> Iterator[Aside | None]:
    """``work`` done in a forked copy (None where it cannot be); stopped if still running when
    the block is left."""
    if not forkable():
        yield None
        return
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # (no process left to this user, say)
        os.close(read)
        os.close(write)
        yield None
        return
    if pid == 0:  # the copy: never returns into the caller's code
        code = 1
        try:
            os.close(read)
            with open(write, "wb") as out:
                out.write(marshal.dumps(work()))
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    copy = Aside(pid, read)
    try:
        yield copy
    finally:
        copy.drop()
