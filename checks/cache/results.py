"""Per-revision results of the model checks, keyed by what decides them, never trusted blindly.

A request's result (a check's program at one revision: its facts, before the parent compares
base with head) is looked up in two steps, as a compiler cache does:

1. the *static key*: everything known before the child runs (the program, its kwargs, the
   factory and config block, the check's settings, the interpreter's torch version, the device,
   the sandbox mode, gradgate's version and code, the tree's list of Python files) names a
   *manifest*: the lists of files earlier runs with that key imported;
2. for each such list, the content of those files in this revision's tree completes the key
   of an *entry*, which holds the result and the commit it was computed at.

Every blob read back starts with the SHA-256 of the rest and names the key it was stored
under: a truncated, edited or foreign entry (one copied under another key) does not match and
is a miss, so the result is computed again. Entries live in a *scope*: ``trusted``, or one fork
PR's own (``fork-<n>``). A fork's gate reads base results from both, head results only from its
own, and writes only to its own, so what code from a fork computed is never reused elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from gradgate.checks.cache.store import Store

FORMAT = 1
MANIFEST_LISTS = 8  # import lists kept per static key, the most recent first
MAX_FILES = 2000  # a child that reports more is not cached
Reader = Callable[[str], "bytes | None"]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def key_of(material: Mapping[str, Any]) -> str:
    """The SHA-256 of ``material`` as canonical JSON."""
    return digest(json.dumps(material, sort_keys=True, default=str).encode())


@dataclass(frozen=True, slots=True)
class Hit:
    """A result read back: its value and the commit whose run computed it."""

    value: Any
    commit: str
    key: str
    files: tuple[str, ...] = ()  # what the run that computed it imported


@dataclass(frozen=True, slots=True)
class CachedSide:
    """What a report says of one side served from the cache."""

    revision: str  # "base" or "head" of this gate
    commit: str  # the commit whose run stored the result
    program: str


@dataclass
class ResultCache:
    """The gate's cache: a store and the scope this gate reads and writes."""

    store: Store
    scope: str = "trusted"
    # Reads and writes, counted (the bench and tests read them).
    hits: int = 0
    misses: int = 0
    rejected: int = 0  # entries that failed their digest or key check
    stats: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def for_fork(store: Store, pr_number: int | None) -> ResultCache:
        return ResultCache(store, scope=f"fork-{pr_number if pr_number is not None else 0}")

    def _reads(self, revision: str) -> tuple[str, ...]:
        if self.scope == "trusted" or revision == "head":
            return (self.scope,)
        return (self.scope, "trusted")  # a fork's base is trusted code

    def lookup(self, revision: str, material: Mapping[str, Any], read: Reader) -> Hit | None:
        """The result stored for ``material`` and the current content of the files a run
        with it imported, read with ``read`` (a path in the revision's tree -> its bytes, None
        where there is no such file); None on a miss, or on an entry that failed a check."""
        for scope in self._reads(revision):
            static = key_of({"scope": scope, "static": material})
            lists = self._read(f"m-{static}", static)
            for files in lists if isinstance(lists, list) else ():
                if not _is_list(files):
                    continue
                full = _full_key(static, files, read)
                if full is None:
                    continue
                entry = self._read(f"r-{full}", full)
                if isinstance(entry, dict) and isinstance(entry.get("commit"), str):
                    self.hits += 1
                    return Hit(entry.get("value"), entry["commit"], full, tuple(files))
        self.misses += 1
        return None

    def save(
        self,
        material: Mapping[str, Any],
        read: Reader,
        files: Sequence[str],
        value: Any,
        *,
        commit: str,
    ) -> str | None:
        """Store ``value`` for ``material`` and ``files`` (paths in the revision's tree, the
        files the run imported) as ``read`` gives them; the entry's key (what a hit on it
        returns in ``Hit.key``), None when nothing was stored."""
        listed = sorted({f for f in files if _safe(f)})
        if len(listed) > MAX_FILES:
            return None
        static = key_of({"scope": self.scope, "static": material})
        full = _full_key(static, listed, read)
        if full is None:
            return None
        self._write(f"r-{full}", full, {"value": value, "commit": commit})
        known = self._read(f"m-{static}", static)
        lists = [x for x in (known if isinstance(known, list) else []) if _is_list(x)]
        lists = [listed, *(x for x in lists if x != listed)][:MANIFEST_LISTS]
        self._write(f"m-{static}", static, lists)
        return full

    def _write(self, name: str, key: str, body: Any) -> None:
        payload = json.dumps(
            {"format": FORMAT, "key": key, "made": time.time(), "body": body}, allow_nan=True
        ).encode()
        self.store.put(name, digest(payload).encode() + b"\n" + payload)

    def _read(self, name: str, key: str) -> Any:
        """The body of the blob ``name`` if it is whole, unedited and stored under ``key``."""
        data = self.store.get(name)
        if data is None:
            return None
        said, newline, payload = data.partition(b"\n")
        try:
            parsed = json.loads(payload) if newline and said.decode() == digest(payload) else None
        except (UnicodeDecodeError, ValueError, RecursionError):
            parsed = None
        if (
            not isinstance(parsed, dict)
            or parsed.get("format") != FORMAT
            or parsed.get("key") != key
        ):
            self.rejected += 1
            return None
        return parsed.get("body")


def _is_list(files: Any) -> bool:
    return isinstance(files, list) and all(isinstance(f, str) for f in files)


def _safe(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(parts) and not PurePosixPath(path).is_absolute() and ".." not in parts


def _full_key(static: str, files: Iterable[str], read: Reader) -> str | None:
    """The entry key: the static key and each file's content digest (a file that is not there
    counts as absent, so adding it back changes the key)."""
    contents = []
    for name in files:
        if not _safe(name):
            return None
        data = read(name)
        contents.append((name, None if data is None else digest(data)))
    return key_of({"static": static, "files": contents})
