"""The App's result cache (docs/caching.md) in its queue store: the same SQLite file or Redis
the queues and the ledger use, so every worker, on any machine, reads what another wrote.

Entries live in one namespace of huey's key/value storage; a second one keeps, for each, when
it was last used and its size, which is all eviction reads. A store that cannot be reached or
written is a miss, never an error: ``checks.cache.results`` checks what it reads anyway.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from huey.constants import EmptyData
from huey.storage import BaseStorage

DEFAULT_MAX_MB = 256
ENTRIES = "gradgate_results"
USED = "gradgate_results_used"


class QueueStore:
    """A ``checks.cache.store.Store`` on the queue's storage: ``storage(namespace)`` opens one
    namespace (``Queues.storage``); the least recently used go past ``max_bytes``."""

    def __init__(
        self, storage: Callable[[str], BaseStorage], *, max_bytes: int = DEFAULT_MAX_MB << 20
    ) -> None:
        self._entries = storage(ENTRIES)
        self._used = storage(USED)
        self.max_bytes = max_bytes

    def get(self, name: str) -> bytes | None:
        try:
            data = self._entries.peek_data(name)
        except Exception:
            return None
        if data is EmptyData or data is None:
            return None
        raw = bytes(data)
        with contextlib.suppress(Exception):
            self._used.put_data(name, _mark(len(raw)))
        return raw

    def put(self, name: str, data: bytes) -> None:
        try:
            self._entries.put_data(name, data)
            self._used.put_data(name, _mark(len(data)))
            self.evict()
        except Exception:
            return

    def evict(self) -> None:
        """Drop the least recently used entries until the rest fit in ``max_bytes``."""
        marks = sorted(
            (_when(value), _size(value), _text(key))
            for key, value in self._used.result_items().items()
        )
        total = sum(size for _, size, _ in marks)
        for _, size, name in marks:
            if total <= self.max_bytes:
                break
            self._entries.delete_data(name)
            self._used.delete_data(name)
            total -= size

    def size(self) -> int:
        return sum(_size(value) for value in self._used.result_items().values())


def _mark(size: int) -> bytes:
    return f"{time.time():.6f} {size}".encode()


def _text(raw: Any) -> str:
    return bytes(raw).decode() if isinstance(raw, bytes | memoryview) else str(raw)


def _when(raw: Any) -> float:
    try:
        return float(_text(raw).split()[0])
    except (ValueError, IndexError):
        return 0.0


def _size(raw: Any) -> int:
    try:
        return int(_text(raw).split()[1])
    except (ValueError, IndexError):
        return 0
