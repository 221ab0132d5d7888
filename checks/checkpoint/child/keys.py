"""State-dict key rewriting shared by both sides: wrapper prefixes and declared migrations.

Child-side (stdlib only, Python 3.9+): the child applies these to checkpoints it loads, the
parent to the ones it read itself and to suggested maps, so both sides rewrite keys alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Optional

# What wrappers add in front of every key: DistributedDataParallel / DataParallel ("module.")
# and torch.compile's OptimizedModule ("_orig_mod."), possibly nested.
WRAPPER_PREFIXES = ("module.", "_orig_mod.")

# A migration: (pattern, replacement); replacement None drops the key.
Migration = tuple[str, Optional[str]]  # typing.Optional: `X | None` needs Python 3.10 here


def wrapper_prefix(keys: Sequence[str], model_keys: Sequence[str]) -> str:
    """The wrapper prefix every key of a checkpoint carries and the model's keys do not ("")."""
    if not keys:
        return ""
    model_has = set(model_keys)
    prefix = ""
    while True:
        for wrapper in WRAPPER_PREFIXES:
            candidate = prefix + wrapper
            # A model whose own submodule is named `module` keeps its keys as they are.
            if all(k.startswith(candidate) for k in keys) and not any(
                k.startswith(candidate) for k in model_has
            ):
                prefix = candidate
                break
        else:
            return prefix


def strip_prefix(keys: Sequence[str], prefix: str) -> list[str]:
    return [k[len(prefix) :] for k in keys] if prefix else list(keys)


def rewrite(key: str, migrations: Sequence[Migration]) -> tuple[str | None, list[int]]:
    """``key`` after every migration in order (Python ``re.sub``), and the indices of the
    migrations that changed it; None when a migration dropped it."""
    used: list[int] = []
    current = key
    for index, (pattern, replacement) in enumerate(migrations):
        if replacement is None:
            if re.search(pattern, current):
                return None, [*used, index]
            continue
        changed = re.sub(pattern, replacement, current)
        if changed != current:
            used.append(index)
            current = changed
    return current, used


def migrate(
    keys: Sequence[str], migrations: Sequence[Migration]
) -> tuple[dict[str, str], dict[str, list[int]], list[str]]:
    """Apply ``migrations`` to ``keys``: (new key -> old key, old key -> migrations used,
    dropped old keys). When two old keys land on one new key the later one wins, as a dict
    built in a load hook would do."""
    renamed: dict[str, str] = {}
    used: dict[str, list[int]] = {}
    dropped: list[str] = []
    for key in keys:
        new, which = rewrite(key, migrations)
        if which:
            used[key] = which
        if new is None:
            dropped.append(key)
        else:
            renamed[new] = key
    return renamed, used, dropped
