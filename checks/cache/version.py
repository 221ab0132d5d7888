"""Two parts of every cache key: the torch that runs the user's code, and gradgate itself."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import subprocess
from pathlib import Path

_ASK = "import importlib.metadata as m; print(m.version('torch'))"


@functools.cache
def torch_version(python: str | None) -> str | None:
    """torch's version under ``python`` (None: gradgate's own interpreter), read from its
    installed metadata without importing it; None when it cannot be told."""
    if python is None:
        try:
            return importlib.metadata.version("torch")
        except importlib.metadata.PackageNotFoundError:
            return None
    try:
        done = subprocess.run(
            [python, "-I", "-c", _ASK], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    said = done.stdout.strip()
    return said if done.returncode == 0 and said and len(said) < 100 else None


@functools.cache
def own_version() -> str:
    """gradgate's version and a digest of its checks' code (what computes a result): an
    edited checkout of the same version keys its results apart."""
    try:
        version = importlib.metadata.version("gradgate")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    code = hashlib.sha256()
    top = Path(__file__).resolve().parents[1]
    for path in sorted(top.rglob("*.py")):
        code.update(str(path.relative_to(top)).encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{version}+{code.hexdigest()[:16]}"
