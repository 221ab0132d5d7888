"""Where cache entries live: named blobs, bounded in size, the least recently used go first.

A store knows nothing of what it holds: ``checks.cache.results`` checks every entry it reads
(its digest and its key), so a store may lose, truncate or mix up entries without a wrong
result coming of it, only a miss.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

DEFAULT_MAX_MB = 512
_NAME = re.compile(r"^[a-z]-[0-9a-f]{64}$")


class Store(Protocol):
    """Named blobs. ``get`` of a name never stored (or evicted) is None."""

    def get(self, name: str) -> bytes | None: ...

    def put(self, name: str, data: bytes) -> None: ...


def checked_name(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"not a cache entry name: {name!r}")
    return name


def default_folder() -> Path:
    """The user's cache folder by convention: $XDG_CACHE_HOME/gradgate, else ~/.cache/gradgate."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "gradgate"


class FolderStore:
    """One file per entry under ``root``/results; reading an entry marks it used (its mtime),
    and a write that takes the folder past ``max_bytes`` removes the least recently used."""

    def __init__(self, root: Path, *, max_bytes: int = DEFAULT_MAX_MB << 20) -> None:
        self.root = root / "results"
        self.max_bytes = max_bytes

    def _path(self, name: str) -> Path:
        return self.root / checked_name(name)

    def get(self, name: str) -> bytes | None:
        path = self._path(name)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: the last to go
        return data

    def put(self, name: str, data: bytes) -> None:
        path = self._path(name)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            # Written whole, then renamed: a reader never sees half an entry from us.
            fd, temp = tempfile.mkstemp(dir=self.root, prefix=".part-")
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            os.replace(temp, path)
        except OSError:
            return  # a cache that cannot be written is only a miss next time
        self.evict()

    def _entries(self) -> Iterator[tuple[float, int, Path]]:
        with contextlib.suppress(OSError):
            for path in self.root.iterdir():
                with contextlib.suppress(OSError):
                    status = path.stat()
                    yield status.st_mtime, status.st_size, path

    def evict(self) -> None:
        """Remove the least recently used entries until the folder holds at most max_bytes
        (and stray half-written files older than an hour)."""
        entries = sorted(self._entries())
        now = time.time()
        total = sum(size for _, size, _ in entries)
        for mtime, size, path in entries:
            stray = path.name.startswith(".part-") and now - mtime > 3600
            if total <= self.max_bytes and not stray:
                continue
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size

    def size(self) -> int:
        return sum(size for _, size, _ in self._entries())
