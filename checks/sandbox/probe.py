"""What this machine offers the sandbox, asked once per process: bubblewrap, and the interpreter.

``bubblewrap()`` finds `bwrap` and runs it once with the sandbox's own namespaces: a bwrap that
is installed but cannot work (no unprivileged user namespaces, a container's seccomp filter,
an AppArmor rule) is reported with bwrap's own words, so `sandbox: auto` can fall back and say
why, and `sandbox: require` can refuse with a reason a user can act on.

``interpreter(python)`` asks the user's interpreter where it lives (its prefixes and its
`sys.path`), so bubblewrap can show it to the child read-only and nothing else of the machine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.bwrap import DISABLE_USERNS, NAMESPACES, SYSTEM_BINDS, system_binds

_PROBE_S = 10.0


@dataclass(frozen=True, slots=True)
class Bubblewrap:
    path: str | None  # None: not usable, see ``reason``
    version: tuple[int, ...] = ()
    reason: str | None = None


@cache
def bubblewrap() -> Bubblewrap:
    """The usable `bwrap` on PATH, or why there is none."""
    if not sys.platform.startswith("linux"):
        return Bubblewrap(None, reason=f"bubblewrap runs on Linux only, not {sys.platform}")
    path = shutil.which("bwrap")
    if path is None:
        return Bubblewrap(None, reason="`bwrap` is not installed")
    try:
        said = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=_PROBE_S, check=False
        )
        version = tuple(int(p) for p in said.stdout.split()[-1].split(".") if p.isdigit())
        trial = [*NAMESPACES, *(["--disable-userns"] if version >= DISABLE_USERNS else [])]
        trial += [*system_binds(SYSTEM_BINDS), "--proc", "/proc", "--dev", "/dev"]
        tried = subprocess.run(
            [path, *trial, "true"],
            capture_output=True,
            text=True,
            timeout=_PROBE_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, IndexError, ValueError) as exc:
        return Bubblewrap(None, reason=f"`{path}` could not be run: {exc}")
    if tried.returncode != 0:
        words = tried.stderr.strip().splitlines()
        detail = words[-1] if words else f"exit status {tried.returncode}"
        return Bubblewrap(None, reason=f"`{path}` cannot make a sandbox here: {detail}")
    return Bubblewrap(path, version)


@dataclass(frozen=True, slots=True)
class Interpreter:
    executable: str  # absolute: a bare name was looked up on PATH
    paths: tuple[str, ...]  # the prefixes and sys.path folders that exist


_ASK = (
    "import json, os, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, "
    "sys.exec_prefix, sys.base_exec_prefix] + [p for p in sys.path if os.path.isdir(p)]))"
)


@cache
def interpreter(python: str, path_env: str, library_path: str | None = None) -> Interpreter:
    """Where ``python`` (a path, or a name on ``path_env``) lives; its site-packages included.

    Runs it once outside the sandbox, in isolated mode (no cwd, no PYTHON* variables), with
    no user code on its path. Raises SandboxError (kind "crash") when it cannot be run.
    """
    try:
        done = subprocess.run(
            [python, "-I", "-c", _ASK],
            capture_output=True,
            text=True,
            timeout=_PROBE_S * 3,
            env={"PATH": path_env}
            if library_path is None
            else {"PATH": path_env, "LD_LIBRARY_PATH": library_path},
            cwd="/",
            check=True,
        )
        answer = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        detail = getattr(exc, "stderr", None) or exc
        raise SandboxError(
            f"could not start a sandbox process with `{python}`: {detail}", kind="crash"
        ) from exc
    executable, *paths = (str(p) for p in answer)
    return Interpreter(executable, tuple(dict.fromkeys(p for p in paths if Path(p).is_dir())))
