"""What the memo tables of ``zone_run.MatchRun`` hold: a directory's or a name's side of a match
(``Side``), and what a directory passes on to those below it (``Dir``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gradgate.bot.plan.zone_index import NONE, DirTest

Adds = tuple[Callable[[str], None], ...]  # the `list.append` of each zone a path is in
Candidates = tuple[list[DirTest], list[DirTest], tuple[tuple[str, ...], tuple[str, ...]]]


@dataclass(slots=True, eq=False)
class Side:
    """What a directory (a state) or a name (a class) decides, shared by all alike."""

    win: dict[int, int]  # zone -> winning rule (of a class: among those needing no part)
    zones: frozenset[int]  # the zones it decides something in
    mask: int  # winners' zones as bits, then those of the parts it has (or a class needs)
    inc: frozenset[int]  # the zones its winners include
    adds: Adds
    parts: frozenset[int] = NONE  # a state's
    cond: list[tuple[int, int]] = field(default_factory=list)  # a class's: (rule, part)
    memo: dict[Side, Adds] = field(default_factory=dict)  # a state's, per class it meets
    names: dict[str | tuple[str], Adds] = field(default_factory=dict)  # a state's, per name key


@dataclass(slots=True, eq=False)
class Dir:
    """What a directory passes on to its subdirectories; shared by those where nothing ends."""

    win: dict[int, int]  # zone -> winning rule among the tests matching "<dir>/"
    key: frozenset[int]  # those rules: directories with equal keys and parts resolve alike
    deep: frozenset[int]  # parts that hold here and below
    plain: Dir | None = None  # its subdirectories' where nothing ends there
    bare: Side | None = None  # the state of a directory with this one where no flat part holds
    extra: bool = False  # whether `deep` holds parts only special names need (then, `deeps`)
    # Its subdirectories' candidate tests by their names' ids: below a top directory, every
    # directory sharing a Dir is under one top (a top directory's own is never shared).
    cands: dict[frozenset[int], Candidates] = field(default_factory=dict)
