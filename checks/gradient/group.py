"""Parameter names -> the fewest module prefixes that cover exactly them (pure).

A report that lists 400 parameters is unread; `encoder.layers.3.*` is not. A prefix stands for
its parameters only when every parameter under it (in ``universe``) is selected; otherwise the
prefix is split by its next name component, down to single parameters. Modules that changed
alike in every copy of a repeated block are then one group (``fold_groups``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from gradgate.checks.fold import fold, missing_copies, split


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


@dataclass(frozen=True, slots=True)
class Group:
    """One finding's parameters: module prefixes, folded over repeated blocks."""

    shown: tuple[str, ...]  # `blocks.{0..3}.proj.*`
    members: tuple[str, ...]  # every parameter name it stands for
    raw: tuple[str, ...]  # the unfolded prefixes (`blocks.0.proj.*`, ...)
    copies: int  # how many blocks alike (1: not repeated)
    others: tuple[str, ...]  # the blocks of the same kind it does not cover (`blocks.3`)
    parts: tuple[Group, ...] = ()  # groups with one cause, merged (``merged``)


def fold_groups(
    groups: Sequence[tuple[Sequence[str], Sequence[str]]], universe: Collection[str]
) -> list[Group]:
    """(prefixes, members) per module -> one Group per set of modules that changed alike: the
    same prefixes once block indices are set aside (issue 20: one finding per cause)."""
    merged: dict[tuple[str, ...], tuple[list[str], list[str]]] = {}
    for patterns, members in groups:
        key = tuple(split(p)[0] for p in patterns)
        raw, names = merged.setdefault(key, ([], []))
        raw += patterns
        names += members
    out = []
    for raw, names in merged.values():
        folded = fold(raw)
        copies = max(f.copies for f in folded)
        others = missing_copies(folded[0], universe) if copies > 1 else ()
        out.append(Group(tuple(f.text for f in folded), tuple(names), tuple(raw), copies, others))
    return out


def merged(groups: Sequence[Group]) -> Group:
    """Groups with one cause as one finding's: each keeps its own words (``parts``)."""
    return Group(
        tuple(p for g in groups for p in g.shown),
        tuple(n for g in groups for n in g.members),
        tuple(p for g in groups for p in g.raw),
        1,
        (),
        tuple(groups),
    )
