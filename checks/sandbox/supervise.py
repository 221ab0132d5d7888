"""Start the child, read its result and output, stop it at the deadline: what happened, as a value.

The result travels over a dedicated pipe whose write end the child gets as an extra fd;
stdout and stderr belong to user code and only their last few KB are kept, for error messages.
The child runs in its own session. When it has exited (or the deadline passed, or the result
grew too large) its whole process group is killed, and the run's cgroup if it has one, so
processes it started die with it; under bubblewrap the kernel kills every process of the
PID namespace as soon as its first one exits.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.limits import SandboxLimits
from gradgate.checks.sandbox.outcome import Finished

TAIL_BYTES = 4096
_TICK_S = 0.05  # how often the supervisor checks on the child when it cannot wait on a pidfd
_DRAIN_S = 1.0  # how long to keep reading output after the child exited


def supervise(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    limits: SandboxLimits,
    where: str,
    kill_all: Callable[[], None] = lambda: None,
    over_disk: Callable[[], bool] | None = None,
    stop: Callable[[], bool] | None = None,
    fds: Sequence[int] = (),
) -> Finished:
    """Run ``argv`` (the result fd's number is appended) and watch it until it is done.

    ``kill_all`` kills what the process group does not hold (the run's cgroup). ``over_disk``:
    asked on every tick whether the run is past its disk cap (``checks.sandbox.disk.Watch``);
    True stops it. ``stop``: asked on every tick; True stops the child as its deadline would
    (a long-lived child whose caller's own, shorter deadline passed: ``checks.model.session``).
    ``fds``: descriptors the child inherits besides the result pipe's (a long-lived child's
    request and reply pipes), at the same numbers; the caller keeps and closes its own copies.
    """
    result_r, result_w = os.pipe()
    out_r, out_w = os.pipe()
    try:
        proc = subprocess.Popen(
            [*argv, str(result_w)],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=out_w,
            pass_fds=(result_w, *fds),
            start_new_session=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        os.close(result_r)
        os.close(out_r)
        raise SandboxError(
            f"could not start a sandbox process for {where} with `{argv[0]}`: {exc}", kind="crash"
        ) from exc
    finally:
        os.close(result_w)
        os.close(out_w)
    buffers = {result_r: bytearray(), out_r: bytearray()}
    cap = limits.result_mb << 20
    timed_out = overflowed = disk_full = False
    deadline = time.monotonic() + limits.timeout_s
    exit_fd = _pidfd(proc.pid)
    with selectors.DefaultSelector() as selector:
        for fd in buffers:
            selector.register(fd, selectors.EVENT_READ)
        if exit_fd is not None:
            selector.register(exit_fd, selectors.EVENT_READ)
        try:
            # Never reap the child before killing its group: its pid is the group id, and a
            # zombie keeps that id from being reused.
            while not _exited(proc.pid):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (stop is not None and stop()):
                    timed_out = True
                    break
                _pump(selector, buffers, out_r, timeout=min(remaining, _TICK_S), skip=exit_fd)
                if len(buffers[result_r]) > cap:
                    overflowed = True
                    break
                if over_disk is not None and over_disk():
                    disk_full = True
                    break
            # Always: processes the function started (DataLoader workers, a forgotten Popen)
            # die with it.
            _kill_group(proc.pid)
            kill_all()
            if exit_fd is not None:
                selector.unregister(exit_fd)
            drain_until = time.monotonic() + _DRAIN_S
            while selector.get_map() and time.monotonic() < drain_until and not overflowed:
                _pump(selector, buffers, out_r, timeout=_TICK_S)
        finally:
            _kill_group(proc.pid)
            kill_all()
            proc.wait()
            for fd in (result_r, out_r) if exit_fd is None else (result_r, out_r, exit_fd):
                os.close(fd)
    return Finished(
        returncode=proc.returncode,
        result=bytes(buffers[result_r]),
        tail=_decode_tail(buffers[out_r]),
        timed_out=timed_out,
        overflowed=overflowed,
        disk_full=disk_full,
    )


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when ``pid`` exits (Linux 5.3+), so the supervisor
    waits on it instead of polling."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


def _exited(pid: int) -> bool:
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped by someone else
        return True


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pgid, signal.SIGKILL)


def _pump(
    selector: selectors.BaseSelector,
    buffers: dict[int, bytearray],
    out_fd: int,
    *,
    timeout: float,
    skip: int | None = None,
) -> None:
    if not selector.get_map():
        time.sleep(timeout)
        return
    for key, _ in selector.select(timeout):
        if key.fd == skip:  # the child exited: the caller's loop sees it
            continue
        chunk = os.read(key.fd, 1 << 16)
        if not chunk:
            selector.unregister(key.fd)
            continue
        buffer = buffers[key.fd]
        buffer += chunk
        if key.fd == out_fd and len(buffer) > 2 * TAIL_BYTES:
            del buffer[:-TAIL_BYTES]


def _decode_tail(raw: bytes | bytearray) -> str:
    text = raw[-TAIL_BYTES:].decode("utf-8", errors="replace")
    if len(raw) > TAIL_BYTES:
        text = "…" + text.partition("\n")[2]  # drop the partial first line
    return text.strip()
