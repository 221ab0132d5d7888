"""Find what a pickle would import and call, by reading its opcodes; nothing is ever unpickled.

``scan(stream)`` has ``replay`` rebuild the object's shape from the opcodes, as symbols, and
walks it. Every global outside the tensor machinery that torch's own
``weights_only`` unpickler allows is *foreign*: a class or function the pickle would import
and call (``argparse.Namespace``, a dataclass config, numpy scalars, ``os.system``). The result
names each foreign object by its key path in the checkpoint (``args``, ``config/optimizer``),
so a finding can say where it sits. A pickle that cannot be replayed (truncated, malformed) is
an UnreadableCheckpoint.

Why static: gradgate's rule is that checkpoints carry tensors only, and a finding must not
depend on running the pickle. Loading it with ``weights_only=True`` would stop at the first
foreign global with an error; this names all of them and where they are, runs no code, and
needs no torch. Measured on the 2-core test machine: ~2 µs per opcode, so a 1,000-tensor state
dict (~30,000 opcodes) scans in ~60 ms, where ``torch.load(mmap=True)`` takes ~90 ms after
torch's own ~1.4 s import.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gradgate.checks.checkpoint.read.globals import Global
from gradgate.checks.checkpoint.read.replay import (
    BoundedReader,
    Call,
    Dict,
    Persistent,
    Seq,
    replay,
)
from gradgate.checks.errors import UnreadableCheckpoint

_MAX_PATH_PARTS = 6


@dataclass(frozen=True, slots=True)
class Foreign:
    path: str  # where in the checkpoint: "args", "config/optimizer", "" for the top level
    globals: tuple[str, ...]  # what it imports, dotted, in order of appearance
    executes_code: bool  # one of them runs code or touches the system when called


@dataclass(frozen=True, slots=True)
class PickleScan:
    foreign: tuple[Foreign, ...]
    top_keys: tuple[str, ...] | None  # the top-level dict's string keys; None: not a dict
    storages: tuple[tuple[str, str], ...]  # (record key, storage type) of torch storages


def scan(stream: BoundedReader | io.BytesIO) -> PickleScan:
    """Replay one pickle from ``stream`` (left just after its STOP opcode)."""
    try:
        root = replay(stream)
    except UnreadableCheckpoint:
        raise
    except (ValueError, IndexError, KeyError, TypeError, AttributeError, EOFError) as exc:
        raise UnreadableCheckpoint(
            f"its pickle is corrupt or cut short ({brief(exc)}).", reason="pickle"
        ) from None
    return _summarise(root)


def brief(exc: BaseException) -> str:
    """An exception's first line, cut to a length a message can carry."""
    text = str(exc).partition("\n")[0] or type(exc).__name__
    return text if len(text) <= 160 else text[:159] + "…"


def _label(key: Any) -> str:
    if isinstance(key, str):
        return key if len(key) <= 200 else key[:199] + "…"
    # A pickle's LONG4 holds any int: one of 5,000 digits has no str() (int_max_str_digits).
    return str(key) if isinstance(key, int) and key.bit_length() <= 64 else "?"


def _deeper(path: tuple[str, ...], key: Any) -> tuple[str, ...]:
    """The key path one level down; only the first parts are ever shown, so only those are
    kept (a 100k-deep nesting would otherwise copy ever longer paths)."""
    return path if len(path) >= _MAX_PATH_PARTS else (*path, _label(key))


def _summarise(root: Any) -> PickleScan:
    foreign: dict[str, list[Global]] = {}
    storages: list[tuple[str, str]] = []
    seen: set[int] = set()
    # (value, its key path, the path of the foreign object it is part of, if any): what a
    # foreign object holds is reported with it, not as objects of its own
    pending: list[tuple[Any, tuple[str, ...], str | None]] = [(root, (), None)]
    while pending:
        value, path, owner = pending.pop()
        if isinstance(value, Global):
            if not value.allowed:
                where = owner if owner is not None else "/".join(path[:_MAX_PATH_PARTS])
                foreign.setdefault(where, []).append(value)
            continue
        if id(value) in seen:  # an object the memo shares: its content is known already
            continue
        if isinstance(value, Call):
            seen.add(id(value))
            if owner is None and isinstance(value.func, Global) and not value.func.allowed:
                owner = "/".join(path[:_MAX_PATH_PARTS])
            children = [(value.func, path), (value.args, path), (value.state, path)]
            children += [(v, _deeper(path, k)) for k, v in value.items]
            pending.extend((v, p, owner) for v, p in reversed(children))
        elif isinstance(value, Dict):
            seen.add(id(value))
            pending.extend((v, _deeper(path, k), owner) for k, v in reversed(value.items))
            pending.extend((k, path, owner) for k, _ in value.items if not isinstance(k, str | int))
        elif isinstance(value, Seq):
            seen.add(id(value))
            pending.extend((v, path, owner) for v in reversed(value.items))
        elif isinstance(value, Persistent):
            storages.extend(_storage(value.value))
    return PickleScan(
        foreign=tuple(
            Foreign(
                path=path,
                globals=tuple(dict.fromkeys(g.dotted for g in found)),
                executes_code=any(g.executes_code for g in found),
            )
            for path, found in foreign.items()
        ),
        top_keys=_top_keys(root),
        storages=tuple(storages),
    )


def _storage(value: Any) -> Iterator[tuple[str, str]]:
    # torch.save's persistent id: ("storage", storage type, key, location, numel), and in the
    # legacy format a sixth item, the view metadata
    if isinstance(value, Seq) and len(value.items) in (5, 6) and value.items[0] == "storage":
        kind, key = value.items[1], value.items[2]
        if isinstance(key, str):
            yield key, kind.name if isinstance(kind, Global) else "?"


def _top_keys(root: Any) -> tuple[str, ...] | None:
    if isinstance(root, Dict) or (
        isinstance(root, Call) and root.func == Global("collections", "OrderedDict")
    ):
        return tuple(k for k, _ in root.items if isinstance(k, str))
    return None
