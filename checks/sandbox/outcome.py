"""Judging a sandbox run: the parsed target, and how the child ended, made a value.

Pure: nothing here starts a process. ``outcome`` turns a ``Finished`` (what the supervisor in
``checks.sandbox.supervise`` saw) into the function's JSON value or a ``SandboxError`` whose
``kind`` and message say what went wrong; the kinds are listed in ``checks.sandbox.run``. The
child's message format is described in ``checks.sandbox.child``.
"""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass
from typing import Any

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.child import PROTOCOL
from gradgate.checks.sandbox.isolation import Isolation
from gradgate.checks.sandbox.limits import SandboxLimits

MIN_PYTHON = (3, 9)  # the oldest interpreter the child-side modules run on

_HINT = "check `entrypoint` in .gradgate.yml"
_SIGNAL_MEMORY_WORDS = ("bad_alloc", "MemoryError", "out of memory", "allocate memory")


@dataclass(frozen=True, slots=True)
class Target:
    text: str  # as written: "package.module:function" or "path/to/file.py:function"
    module: str | None  # set for module targets
    path: str | None  # set for file targets, relative to the root (or absolute)
    attr: str | None  # "function" or "Class.method"; None: no user function (a spec)


def parse_target(text: str | None, *, revision: str | None = None) -> Target:
    """Split a target string; a malformed one is a SandboxError of kind ``import``.

    None (a program that builds the model from a ``_target_`` spec) is a target with no parts.
    """
    if text is None:
        return Target("the model spec", None, None, None)
    location, _, attr = text.rpartition(":")
    if location.endswith(".py") and _dotted(attr):
        return Target(text, None, location, attr)
    if _dotted(location) and _dotted(attr):
        return Target(text, location, None, attr)
    raise SandboxError(
        f"bad target `{text}`: expected `package.module:function` or "
        f"`path/to/file.py:function` — {_HINT}",
        kind="import",
        revision=revision,
    )


def _dotted(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def target_label(target: str, revision: str | None) -> str:
    """How messages name the target: "`model:build`", or "`model:build` at head"."""
    return f"`{target}`" if revision is None else f"`{target}` at {revision}"


def _speaks_our_protocol(message: dict[str, Any]) -> bool:
    return message.get("protocol") == PROTOCOL


@dataclass(frozen=True, slots=True)
class Finished:
    """What the supervisor saw: the raw material for ``outcome``."""

    returncode: int  # negative: killed by that signal
    result: bytes  # what arrived on the result pipe
    tail: str  # the last few KB of stdout and stderr, interleaved
    timed_out: bool = False
    overflowed: bool = False  # the result passed limits.result_mb
    oom_kills: int = 0  # processes of the run's cgroup the kernel killed for memory
    disk_full: bool = False  # the supervisor stopped it past its disk cap (a watched cap)


def outcome(
    run: Finished,
    target: Target,
    *,
    revision: str | None,
    limits: SandboxLimits,
    capped: bool,
    python: str,
    isolation: Isolation | None = None,
) -> Any:
    """The function's value, or the SandboxError that says what went wrong. Pure.

    ``isolation`` (None: process-level, nothing contained) words what held: whether every
    process was stopped, and whether the limits held for the whole run.
    """
    isolation = isolation or Isolation("process")
    where = target_label(target.text, revision)
    cap = f" (limit {limits.memory_mb} MB)" if capped else ""
    output = f"\n\nLast output:\n{run.tail}" if run.tail else ""

    def fail(kind: str, message: str) -> SandboxError:
        return SandboxError(message, kind=kind, revision=revision)

    if run.timed_out:
        stopped = (
            "with every process it started"
            if isolation.contained
            else "with its process group; processes that left the group may still be running "
            "(bubblewrap would have stopped them)"
        )
        raise fail(
            "timeout",
            f"{where} did not finish within {limits.timeout_s:g} s; it was stopped, "
            f"{stopped}.{output}",
        )
    if run.oom_kills:
        raise fail(
            "memory",
            f"{where}: the kernel killed a process of the run for going over the memory limit "
            f"of {limits.memory_mb} MB, which holds for the child and every process it "
            f"started together.{output}",
        )
    if run.disk_full:
        raise fail("disk", f"{where} {_past_disk(limits)}; it was stopped.{output}")
    if run.overflowed:
        raise fail("output", f"{where} returned more than {limits.result_mb} MB of JSON.")
    if run.result:
        try:
            message = json.loads(run.result)
        except (ValueError, RecursionError):
            message = None
        if isinstance(message, dict) and not _speaks_our_protocol(message):
            raise fail(
                "protocol",
                f"{where}: the sandbox child under `{python}` answered in protocol "
                f"{message.get('protocol')!r}, this gradgate speaks {PROTOCOL}; the child's "
                "files do not belong to this gradgate (reinstall it).",
            )
        if isinstance(message, dict) and message.get("ok") is True and "value" in message:
            return message["value"]
        if isinstance(message, dict) and message.get("phase") == "start":
            raise _start_failure(message, where=where, python=python, revision=revision)
        if isinstance(message, dict) and isinstance(message.get("error"), dict):
            limit = limits.processes if isolation.processes else None
            if message["error"].get("disk"):
                raised = _raised(message["error"])
                raise fail("disk", f"{where} {_past_disk(limits)}: {raised}{output}")
            raise _failure(
                message, target, where=where, cap=cap, processes=limit, revision=revision
            )
        if run.returncode == 0:
            raise fail("output", f"{where} sent a malformed result.")
        # Otherwise a partial result from a child that died while writing: judge the death.
    elif (
        isolation.sandbox == "bubblewrap" and run.returncode == 1 and run.tail.startswith("bwrap:")
    ):
        raise fail("sandbox", f"{where}: bubblewrap could not set up the sandbox: {run.tail}")
    if run.returncode < 0:
        name = _signal_name(-run.returncode)
        if -run.returncode == signal.SIGXFSZ:  # a program that does not ignore it, unlike Python
            raise fail("disk", f"{where} {_past_disk(limits)}: killed by {name}.{output}")
        if -run.returncode == signal.SIGKILL or any(w in run.tail for w in _SIGNAL_MEMORY_WORDS):
            # We did not send it (no timeout), so SIGKILL is almost always the OOM killer.
            raise fail(
                "memory", f"{where} was killed by {name}, most likely out of memory{cap}.{output}"
            )
        raise fail("crash", f"{where} crashed with {name}.{output}")
    raise fail(
        "crash", f"{where} exited with code {run.returncode} before returning a result.{output}"
    )


def _past_disk(limits: SandboxLimits) -> str:
    if limits.disk_mb is None:
        return "ran out of disk space"
    return (
        f"went past its disk cap of {limits.disk_mb} MB (`disk_mb`), which holds for what it "
        "writes to its /tmp, HOME and tree together"
    )


def _raised(error: dict[str, Any]) -> str:
    return ": ".join(str(part) for part in (error.get("type"), error.get("message")) if part)


def _start_failure(
    message: dict[str, Any], *, where: str, python: str, revision: str | None
) -> SandboxError:
    error = message.get("error") or {}
    if error.get("type") == "UnsupportedPython":
        need = ".".join(map(str, MIN_PYTHON))
        text = (
            f"{where}: the interpreter runs {error.get('message')}; the sandbox needs Python "
            f"{need} or newer. Point `--python` (or `python:` in .gradgate.yml) at a newer one."
        )
    else:
        text = (
            f"{where}: the sandbox child under `{python}` refused the run: {error.get('message')}"
        )
    return SandboxError(text, kind="protocol", revision=revision)


def _failure(
    message: dict[str, Any],
    target: Target,
    *,
    where: str,
    cap: str,
    processes: int | None,
    revision: str | None,
) -> SandboxError:
    error = message["error"]
    phase, missing = message.get("phase"), error.get("missing")
    raised = _raised(error)
    trace = f"\n\n{error.get('traceback', '')}".rstrip()
    source = target.module or target.path
    if missing == "module":
        text, kind = f"{where}: module `{error.get('message')}` was not found — {_HINT}", "import"
    elif missing == "file":
        text, kind = f"{where}: file `{target.path}` does not exist — {_HINT}", "import"
    elif missing == "attribute":
        attr = error.get("message")
        text, kind = f"{where}: `{source}` has no attribute `{attr}` — {_HINT}", "import"
    elif missing == "callable":
        text, kind = f"{where}: `{target.attr}` in `{source}` is not callable — {_HINT}", "import"
    elif error.get("memory"):
        text, kind = f"{where} ran out of memory{cap}: {raised}{trace}", "memory"
    elif processes is not None and _out_of_processes(error):
        text = (
            f"{where} could not start another process or thread: the run may have at most "
            f"{processes} at once, the child and everything it starts together. {raised}{trace}"
        )
        kind = "processes"
    elif phase == "import":
        text, kind = f"{where}: importing `{source}` raised {raised}{trace}", "import"
    elif phase == "output":
        reason = error.get("message")
        text = f"{where} returned a value that is not JSON ({reason}); return plain data."
        kind = "output"
    else:
        text, kind = f"{where} raised {raised}{trace}", "exception"
    return SandboxError(text, kind=kind, revision=revision)


def _out_of_processes(error: dict[str, Any]) -> bool:
    """fork() or clone() refused at the process limit: EAGAIN from os.fork or Popen (both raise
    BlockingIOError), or threading's "can't start new thread"."""
    text = str(error.get("message"))
    return (error.get("type") == "BlockingIOError" and "[Errno 11]" in text) or (
        "can't start new thread" in text
    )


def _signal_name(number: int) -> str:
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"signal {number}"
    return f"{sig.name} ({signal.strsignal(sig)})"
