"""Run a function of user code in a fresh child process: clean env, timeout, memory cap, JSON out.

The model checks call ``run_in_sandbox`` once per revision and compare the JSON values. Every
way user code can fail ends as a ``SandboxError`` whose ``kind`` says how:

    import     the target is malformed, missing, or raised while being imported
    exception  the function raised
    memory     MemoryError / allocator failure, or the child was killed as out of memory
    timeout    the wall-clock limit passed; the child and everything it started were killed
    crash      killed by a signal, exited before returning, or could not be started
    output     the return value is not JSON, or is too large

How it works: the child is ``python -s -P _sandbox_child.py`` (no user site-packages, no script
directory on ``sys.path``), in its own session, with ``root`` as cwd and first on ``sys.path``,
and with an environment built from an allow-list. The interpreter's own site-packages stay
importable (torch), gradgate's source tree and the parent's cwd do not. ``-I`` is not used because
it implies ``-E``, which would ignore the PYTHONHASHSEED we set; nothing else from the parent's
environment reaches the child anyway. The result travels over a dedicated pipe; stdout and
stderr belong to user code and only their last few KB are kept, for error messages.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from checks.base import CheckError, SandboxError

_CHILD = Path(__file__).with_name("_sandbox_child.py")
_HINT = "check `entrypoint` in .gradgate.yml"
_TAIL_BYTES = 4096
_TICK_S = 0.05  # how often the supervisor checks whether the child has exited
_DRAIN_S = 1.0  # how long to keep reading output after the child exited

# Copied from the parent's environment when set. Everything else is dropped unless the caller
# names it in ``env_allow``. LD_LIBRARY_PATH: some CUDA installs need it to find libcuda.
PASSED_THROUGH = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH",
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
)  # fmt: skip
# gradgate's own credentials; ``env_allow`` (which comes from a repo's config) cannot pass them.
NEVER_PASSED = (
    "GITHUB_TOKEN", "GH_TOKEN", "GH_APP_*", "GITHUB_APP_*", "GRADGATE_*",
    "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_*",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    timeout_s: float = 600.0
    # Address-space cap (RLIMIT_AS) in MB, CPU devices only; None: no cap. CUDA reserves far
    # more virtual address space than it uses, so an RLIMIT_AS cap breaks it: on cuda the cap
    # is not applied, GPU memory is bounded by torch.cuda.OutOfMemoryError and host memory by
    # the runner (an OOM kill is reported as kind "memory"). RLIMIT_DATA would be the candidate
    # for a host cap on GPU runners, once verified there.
    memory_mb: int | None = 4096
    result_mb: int = 64  # the largest JSON result accepted

    def __post_init__(self) -> None:
        memory_ok = self.memory_mb is None or self.memory_mb > 0
        if not (self.timeout_s > 0 and self.result_mb > 0 and memory_ok):  # NaN fails too
            raise ValueError(f"sandbox limits must be positive: {self}")


@dataclass(frozen=True, slots=True)
class Target:
    text: str  # as written: "package.module:function" or "path/to/file.py:function"
    module: str | None  # set for module targets
    path: str | None  # set for file targets, relative to the root (or absolute)
    attr: str  # "function" or "Class.method"


def parse_target(text: str, *, revision: str | None = None) -> Target:
    """Split a target string; a malformed one is a SandboxError of kind ``import``."""
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


def child_env(
    parent: Mapping[str, str], *, home: Path, tmp: Path, device: str, env_allow: Collection[str]
) -> dict[str, str]:
    """The child's whole environment: the allow-list, ``env_allow``, and the fixed settings."""
    refused = sorted(n for n in env_allow if any(fnmatchcase(n, p) for p in NEVER_PASSED))
    if refused:
        raise CheckError(f"env_allow may not pass {', '.join(refused)} to user code")
    env = {name: parent[name] for name in (*PASSED_THROUGH, *env_allow) if name in parent}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env |= {
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",  # never write __pycache__ into the revision's tree
        "PYTHONUNBUFFERED": "1",  # output printed just before a crash still reaches the tail
        "GRADGATE_DEVICE": device,
    }
    if _memory_rlimit(device) is not None:
        # Hide GPUs from a CPU run, so a factory that picks cuda when available stays on CPU.
        env["CUDA_VISIBLE_DEVICES"] = ""
        # glibc reserves 64 MB of address space per malloc arena, up to 8 per core (mallopt(3));
        # on a many-core runner that alone would exhaust an RLIMIT_AS cap.
        env.setdefault("MALLOC_ARENA_MAX", "4")
    return env


def _memory_rlimit(device: str) -> str | None:
    return "RLIMIT_AS" if device.partition(":")[0] == "cpu" else None


def run_in_sandbox(
    target: str,
    *,
    root: Path,
    kwargs: Mapping[str, Any] | None = None,
    limits: SandboxLimits = SandboxLimits(),  # frozen, so sharing the default is safe
    revision: str | None = None,
    env_allow: Collection[str] = (),
    seed: int | None = 0,
    device: str = "cpu",
) -> Any:
    """Call ``target(**kwargs)`` in a fresh child with ``root`` as cwd; return its JSON value.

    ``seed`` seeds ``random`` before the target is imported, and numpy and torch after, if the
    target's import brought them in. ``device`` reaches the child as GRADGATE_DEVICE. JSON
    turns tuples into lists; NaN and infinity are allowed. Raises SandboxError for anything
    user code does wrong, CheckError for a refused ``env_allow``, TypeError for kwargs that are
    not JSON.
    """
    parsed = parse_target(target, revision=revision)
    root = root.resolve()
    rlimit = _memory_rlimit(device)
    request = {
        "root": str(root),
        "module": parsed.module,
        "path": None if parsed.path is None else str(root / parsed.path),
        "attr": parsed.attr,
        "kwargs": dict(kwargs or {}),
        "seed": seed,
        "memory_bytes": None if limits.memory_mb is None else limits.memory_mb << 20,
        "memory_rlimit": rlimit,
    }
    with tempfile.TemporaryDirectory(prefix="gradgate-sandbox-", ignore_cleanup_errors=True) as d:
        run_dir = Path(d)
        home, tmp = run_dir / "home", run_dir / "tmp"
        home.mkdir()
        tmp.mkdir()
        (run_dir / "request.json").write_text(json.dumps(request), encoding="utf-8")
        env = child_env(os.environ, home=home, tmp=tmp, device=device, env_allow=env_allow)
        argv = [sys.executable, "-s", "-P", str(_CHILD), str(run_dir / "request.json")]
        where = _where(target, revision)
        finished = _supervise(argv, cwd=root, env=env, limits=limits, where=where)
    capped = limits.memory_mb is not None and rlimit is not None
    return outcome(finished, parsed, revision=revision, limits=limits, capped=capped)


def _where(target: str, revision: str | None) -> str:
    return f"`{target}`" if revision is None else f"`{target}` at {revision}"


@dataclass(frozen=True, slots=True)
class Finished:
    """What the supervisor saw: the raw material for ``outcome``."""

    returncode: int  # negative: killed by that signal
    result: bytes  # what arrived on the result pipe
    tail: str  # the last few KB of stdout and stderr, interleaved
    timed_out: bool = False
    overflowed: bool = False  # the result passed limits.result_mb


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
            f"could not start a sandbox process for {where}: {exc}", kind="crash"
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


_SIGNAL_MEMORY_WORDS = ("bad_alloc", "MemoryError", "out of memory", "allocate memory")


def outcome(
    run: Finished, target: Target, *, revision: str | None, limits: SandboxLimits, capped: bool
) -> Any:
    """The function's value, or the SandboxError that says what went wrong. Pure."""
    where = _where(target.text, revision)
    cap = f" (limit {limits.memory_mb} MB)" if capped else ""
    output = f"\n\nLast output:\n{run.tail}" if run.tail else ""

    def fail(kind: str, message: str) -> SandboxError:
        return SandboxError(message, kind=kind, revision=revision)

    if run.timed_out:
        raise fail(
            "timeout",
            f"{where} did not finish within {limits.timeout_s:g} s; it was stopped, "
            f"with every process it started.{output}",
        )
    if run.overflowed:
        raise fail("output", f"{where} returned more than {limits.result_mb} MB of JSON.")
    if run.result:
        try:
            message = json.loads(run.result)
        except (ValueError, RecursionError):
            message = None
        if isinstance(message, dict) and message.get("ok") is True and "value" in message:
            return message["value"]
        if isinstance(message, dict) and isinstance(message.get("error"), dict):
            raise _failure(message, target, where=where, cap=cap, revision=revision)
        if run.returncode == 0:
            raise fail("output", f"{where} sent a malformed result.")
        # Otherwise a partial result from a child that died while writing: judge the death.
    if run.returncode < 0:
        name = _signal_name(-run.returncode)
        if -run.returncode == signal.SIGKILL or any(w in run.tail for w in _SIGNAL_MEMORY_WORDS):
            # We did not send it (no timeout), so SIGKILL is almost always the OOM killer.
            raise fail(
                "memory", f"{where} was killed by {name}, most likely out of memory{cap}.{output}"
            )
        raise fail("crash", f"{where} crashed with {name}.{output}")
    raise fail(
        "crash", f"{where} exited with code {run.returncode} before returning a result.{output}"
    )


def _failure(
    message: dict[str, Any], target: Target, *, where: str, cap: str, revision: str | None
) -> SandboxError:
    error = message["error"]
    phase, missing = message.get("phase"), error.get("missing")
    raised = ": ".join(str(part) for part in (error.get("type"), error.get("message")) if part)
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
    elif phase == "import":
        text, kind = f"{where}: importing `{source}` raised {raised}{trace}", "import"
    elif phase == "output":
        reason = error.get("message")
        text = f"{where} returned a value that is not JSON ({reason}); return plain data."
        kind = "output"
    else:
        text, kind = f"{where} raised {raised}{trace}", "exception"
    return SandboxError(text, kind=kind, revision=revision)


def _signal_name(number: int) -> str:
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"signal {number}"
    return f"{sig.name} ({signal.strsignal(sig)})"
