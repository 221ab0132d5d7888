"""Other Python interpreters on this machine, for tests that run user code under them."""

from __future__ import annotations

import shutil
import subprocess


def _executable(command: list[str]) -> str | None:
    try:
        done = subprocess.run(
            [*command, "-c", "import sys; print(sys.executable)"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def find_python(version: str) -> str | None:
    """The real path of a `pythonX.Y` on PATH (pyenv shims resolved), or None."""
    if shutil.which(f"python{version}") and (found := _executable([f"python{version}"])):
        return found
    if shutil.which("pyenv") is None:
        return None
    listed = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True)
    for name in listed.stdout.split():
        if name.startswith(f"{version}."):
            prefix = subprocess.run(["pyenv", "prefix", name], capture_output=True, text=True)
            if prefix.returncode == 0:
                return _executable([f"{prefix.stdout.strip()}/bin/python{version}"])
    return None
