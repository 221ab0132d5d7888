"""Parameter names -> the fewest module prefixes that cover exactly them (pure).

A report that lists 400 parameters is unread; `encoder.layers.3.*` is not. A prefix stands for
its parameters only when every parameter under it (in ``universe``) is selected; otherwise the
prefix is split by its next name component, down to single parameters.
"""

from __future__ import annotations

from collections.abc import Collection


def cover(selected: Collection[str], universe: Collection[str]) -> list[tuple[str, list[str]]]:
    """(pattern, the selected names it stands for), in the universe's order.

    Patterns are `prefix.*` for two or more parameters under a module, a parameter's own name
    for one, and `*` when every parameter is selected.
    """
    chosen = set(selected)
    pool = list(dict.fromkeys([*universe, *(n for n in selected if n not in set(universe))]))
    return _walk((), pool, chosen)


def _walk(
    prefix: tuple[str, ...], pool: list[str], chosen: set[str]
) -> list[tuple[str, list[str]]]:
    picked = [name for name in pool if name in chosen]
    if not picked:
        return []
    if len(picked) == len(pool):
        if len(pool) == 1:
            return [(pool[0], pool)]
        return [(".".join(prefix) + ".*" if prefix else "*", picked)]
    children: dict[str, list[str]] = {}
    for name in pool:
        children.setdefault(name.split(".")[len(prefix)], []).append(name)
    out: list[tuple[str, list[str]]] = []
    for part, names in children.items():
        out += _walk((*prefix, part), names, chosen)
    return out


def parent_module(pattern: str) -> str:
    """The module whose code uses what ``pattern`` names: `a.b.*` and `a.b.weight` -> `a`."""
    parts = pattern.removesuffix(".*").split(".")
    return ".".join(parts[:-1]) if pattern.endswith(".*") else ".".join(parts[:-2])
