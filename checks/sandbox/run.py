"""Run gradgate's child-side code on user code in a fresh child process; get one JSON value back.

The model checks call ``run_in_sandbox`` once per revision and compare the JSON values. Every
way user code can fail ends as a ``SandboxError`` whose ``kind`` says how:

    import     the target is malformed, missing, or raised while being imported
    exception  the function raised
    memory     MemoryError / allocator failure, or the child was killed as out of memory
    timeout    the wall-clock limit passed; the child and everything it started were killed
    crash      killed by a signal, exited before returning, or could not be started
    output     the return value is not JSON, or is too large
    protocol   the interpreter is too old for the child, or speaks another protocol version

How it works: the child runs under the user's interpreter (``python``; default the one gradgate
runs under), which need not have gradgate installed: every child-side module of
``gradgate.checks`` (``child.py``, or a module of a ``child/`` package) is copied into the run
directory as the package ``_gradgate_child``, and the child starts from ``BOOTSTRAP``. It runs as
``python -s -B -u -c BOOTSTRAP`` (no user site-packages, no bytecode written into the
revision's tree, unbuffered output), in its own session, with ``root`` as cwd and first on
``sys.path``, and with an environment built from an allow-list. The interpreter's own
site-packages stay importable (torch); gradgate and the parent's cwd do not. The result travels
over a dedicated pipe; stdout and stderr belong to user code and only their last few KB are
kept, for error messages.

This module supervises the process. What the run means lives in pure modules: the target,
the limits and the verdict on how the child ended in ``checks.sandbox.outcome``, the
child's environment in ``checks.sandbox.env``. Their public names are re-exported here.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.child import PACKAGE, PROTOCOL
from gradgate.checks.sandbox.env import NEVER_PASSED, PASSED_THROUGH, child_env, memory_rlimit
from gradgate.checks.sandbox.outcome import (
    MIN_PYTHON,
    Finished,
    SandboxLimits,
    Target,
    outcome,
    parse_target,
    target_label,
)

__all__ = [
    "BOOTSTRAP",
    "DEFAULT_PROGRAM",
    "NEVER_PASSED",
    "PASSED_THROUGH",
    "Finished",
    "SandboxLimits",
    "Target",
    "child_env",
    "child_modules",
    "outcome",
    "parse_target",
    "run_in_sandbox",
]

DEFAULT_PROGRAM = "sandbox.child:call_target"
# Written for any Python 3: on an interpreter too old for the child modules it still answers,
# with a message the parent words, instead of dying on a SyntaxError.
BOOTSTRAP = f"""\
import sys, os, json
lib, request, fd = sys.argv[1], sys.argv[2], int(sys.argv[3])
if sys.version_info < {MIN_PYTHON!r}:
    message = {{"protocol": {PROTOCOL}, "ok": False, "phase": "start", "error": {{
        "type": "UnsupportedPython", "missing": None, "memory": False, "traceback": "",
        "message": "Python %d.%d at %s" % (sys.version_info[0], sys.version_info[1],
                                           sys.executable)}}}}
    os.write(fd, json.dumps(message).encode())
    sys.exit(0)
sys.path[0] = lib
from {PACKAGE}.sandbox.child import main
main(request, fd)
"""
_CHECKS = Path(__file__).resolve().parent.parent  # the folder of gradgate.checks
_TAIL_BYTES = 4096
_TICK_S = 0.05  # how often the supervisor checks whether the child has exited
_DRAIN_S = 1.0  # how long to keep reading output after the child exited
_DEFAULT_LIMITS = SandboxLimits()  # frozen, so sharing the default is safe


def child_modules() -> list[Path]:
    """Every child-side module of gradgate.checks (a ``child.py``, or any module in a ``child/``
    package), relative to the folder of gradgate.checks."""
    return sorted(
        relative
        for relative in (path.relative_to(_CHECKS) for path in _CHECKS.rglob("*.py"))
        if relative.name == "child.py" or "child" in relative.parent.parts
    )


def _copy_child_package(lib: Path) -> None:
    """``lib/_gradgate_child/``: the child-side modules, with empty package files around them."""
    package = lib / PACKAGE
    for relative in child_modules():
        target = package / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_CHECKS / relative, target)
        for folder in [target.parent, *target.parent.parents]:
            if folder == lib:
                break
            (folder / "__init__.py").touch()


def run_in_sandbox(
    target: str | None,
    *,
    root: Path,
    kwargs: Mapping[str, Any] | None = None,
    program: str = DEFAULT_PROGRAM,
    limits: SandboxLimits = _DEFAULT_LIMITS,
    revision: str | None = None,
    env_allow: Collection[str] = (),
    seed: int | None = 0,
    device: str = "cpu",
    python: str | None = None,
) -> Any:
    """Run ``program`` on the user's ``target`` in a fresh child with ``root`` as cwd.

    ``program`` is a child-side function (``"sandbox.child:call_target"``, module path below
    gradgate.checks) called with the request and the target; the default calls
    ``target(**kwargs)``. Programs read their own settings from ``kwargs``. ``target`` may be
    None for programs that build the model another way (a ``_target_`` spec). ``python`` is the
    interpreter to run (default: the one gradgate runs under). ``seed`` seeds ``random`` before
    the target is imported, and numpy and torch after. ``device`` reaches the child as
    GRADGATE_DEVICE. JSON turns tuples into lists; NaN and infinity are allowed. Raises
    SandboxError for anything user code does wrong, CheckError for a refused ``env_allow``,
    TypeError for kwargs that are not JSON.
    """
    parsed = parse_target(target, revision=revision)
    root = root.resolve()
    rlimit = memory_rlimit(device)
    request = {
        "protocol": PROTOCOL,
        "program": program,
        "root": str(root),
        "module": parsed.module,
        "path": None if parsed.path is None else str(root / parsed.path),
        "attr": parsed.attr,
        "kwargs": dict(kwargs or {}),
        "seed": seed,
        "device": device,
        "memory_bytes": None if limits.memory_mb is None else limits.memory_mb << 20,
        "memory_rlimit": rlimit,
    }
    interpreter = python or sys.executable
    with tempfile.TemporaryDirectory(prefix="gradgate-sandbox-", ignore_cleanup_errors=True) as d:
        run_dir = Path(d)
        home, tmp, lib = run_dir / "home", run_dir / "tmp", run_dir / "lib"
        for folder in (home, tmp, lib):
            folder.mkdir()
        _copy_child_package(lib)
        (run_dir / "request.json").write_text(json.dumps(request), encoding="utf-8")
        env = child_env(os.environ, home=home, tmp=tmp, device=device, env_allow=env_allow)
        argv = [interpreter, "-s", "-B", "-u", "-c", BOOTSTRAP, str(lib)]
        argv.append(str(run_dir / "request.json"))
        where = target_label(parsed.text, revision)
        finished = _supervise(argv, cwd=root, env=env, limits=limits, where=where)
    capped = limits.memory_mb is not None and rlimit is not None
    return outcome(
        finished, parsed, revision=revision, limits=limits, capped=capped, python=interpreter
    )


def _supervise(
    argv: list[str], *, cwd: Path, env: dict[str, str], limits: SandboxLimits, where: str
) -> Finished:
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
            pass_fds=(result_w,),
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
    timed_out = overflowed = False
    deadline = time.monotonic() + limits.timeout_s
    with selectors.DefaultSelector() as selector:
        for fd in buffers:
            selector.register(fd, selectors.EVENT_READ)
        try:
            # Never reap the child before killing its group: its pid is the group id, and a
            # zombie keeps that id from being reused.
            while not _exited(proc.pid):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                _pump(selector, buffers, out_r, timeout=min(remaining, _TICK_S))
                if len(buffers[result_r]) > cap:
                    overflowed = True
                    break
            # Always: processes the function started (DataLoader workers, a forgotten Popen)
            # die with it. One that called setsid() itself escapes; a cgroup would catch it.
            _kill_group(proc.pid)
            drain_until = time.monotonic() + _DRAIN_S
            while selector.get_map() and time.monotonic() < drain_until and not overflowed:
                _pump(selector, buffers, out_r, timeout=_TICK_S)
        finally:
            _kill_group(proc.pid)
            proc.wait()
            os.close(result_r)
            os.close(out_r)
    return Finished(
        returncode=proc.returncode,
        result=bytes(buffers[result_r]),
        tail=_decode_tail(buffers[out_r]),
        timed_out=timed_out,
        overflowed=overflowed,
    )


def _exited(pid: int) -> bool:
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped by someone else
        return True


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pgid, signal.SIGKILL)


def _pump(
    selector: selectors.BaseSelector, buffers: dict[int, bytearray], out_fd: int, *, timeout: float
) -> None:
    if not selector.get_map():
        time.sleep(timeout)
        return
    for key, _ in selector.select(timeout):
        chunk = os.read(key.fd, 1 << 16)
        if not chunk:
            selector.unregister(key.fd)
            continue
        buffer = buffers[key.fd]
        buffer += chunk
        if key.fd == out_fd and len(buffer) > 2 * _TAIL_BYTES:
            del buffer[:-_TAIL_BYTES]


def _decode_tail(raw: bytes | bytearray) -> str:
    text = raw[-_TAIL_BYTES:].decode("utf-8", errors="replace")
    if len(raw) > _TAIL_BYTES:
        text = "…" + text.partition("\n")[2]  # drop the partial first line
    return text.strip()
