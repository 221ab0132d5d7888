"""Run one step under a wall-clock limit: its value, or TimedOut when the limit passed first.

A check that runs in gradgate's own process (the `protected` check, a pure-Python parser on a
hostile file) cannot be killed, so it runs in a daemon thread that is abandoned when its time is
up: the verdict is an error on time, and the thread dies with the process. Checks that run user
code also have the sandbox's own limits, which kill the child.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

_T = TypeVar("_T")


class TimedOut(Exception):
    """The step was still running when its limit passed."""


class _Outcome(Generic[_T]):
    def __init__(self) -> None:
        self.value: _T | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()


def within(limit_s: float, step: Callable[[], _T], *, name: str = "gradgate-step") -> _T:
    """``step()``, or TimedOut after ``limit_s`` seconds; what ``step`` raises is raised here."""
    outcome: _Outcome[_T] = _Outcome()

    def run() -> None:
        try:
            outcome.value = step()
        except BaseException as error:  # handed to the caller, whatever it is
            outcome.error = error
        finally:
            outcome.done.set()

    worker = threading.Thread(target=run, name=name, daemon=True)
    worker.start()
    if not outcome.done.wait(limit_s):
        raise TimedOut(name)
    if outcome.error is not None:
        raise outcome.error
    return cast(_T, outcome.value)  # set: done without an error
