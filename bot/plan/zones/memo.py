"""One match's memo tables: what decides for each distinct directory, name and pair of them.

Asked per zone and path, a 100,000-path diff and 500 patterns is 50M regex calls. Instead:

1. ``index`` cuts every pattern's pathspec regex in two: what the *directory* part of a
   path decides ("<dir>/" matches `src/**/`) and what the *name* decides (`*.py`). Patterns that
   do not cut cleanly send their zone to plain pathspec (``ZoneMatcher.slow``).
2. Each distinct directory gets a **state** (``Side``): the rules that matched it or one of its
   parents (inherited, so computed once per directory from its parent's), and the **parts** --
   directory halves of name patterns -- that hold for it.
3. Each distinct name gets a **class** (``Side`` too): its rules are chosen by its suffix
   (`.py`), or by the name itself when a pattern names it literally or holds a literal inside
   it (``PatternIndex.special`` / ``needles``). Names with the same rules share a class.
4. A path's zones are its state's zones plus its class's -- unless both decide something in the
   same zone (their ``mask`` bits meet): then the winning rule (pathspec's: highest priority,
   then last) is resolved once per (state, class) pair and memoised (``Side.memo``).

So the hot loop (``MatchRun.fill``) is a few dict lookups per path, and the regexes run
once per distinct directory or name. Words used below:

    rule      one pattern of one zone: (zone, priority rank, includes?) in ``PatternIndex.rules``
    win       zone -> its winning rule so far, for a state or a class
    part      the directory half of a name pattern, shared by the classes that need it
    mask      bits: the zones a side decides in (then, shifted, the zones of its parts)
    adds      the ``list.append`` of each zone a path with this state and class belongs to
    odd       the side for paths the index does not model (leading "/", "//", newlines): such a
              path is asked of pathspec itself
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from gradgate.bot.plan.zones.index import NONE, ROOT, DirTest, PatternIndex

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


class MatchRun:
    """Memo tables per directory, name, state and class, and each zone's `found` list: one
    `ZoneMatcher.match` call's."""

    def __init__(
        self, index: PatternIndex, found: list[list[str]], exact: Callable[[str], None]
    ) -> None:
        self.index, self.found, self.exact = index, found, exact
        self.appends = [f.append for f in found]
        self.odd = Side({}, NONE, -1, NONE, (exact,))
        # The parts some name that is not special may need (`Names.classify` without `special`:
        # the ids of a suffix, or of any name); the others matter to special names alone.
        names = index.names
        common = names.any.union(*names.ext.values())
        self.plain_parts = frozenset(x for i in common for _, x in index.full.get(i, ()) if x >= 0)
        self.states: dict[tuple[frozenset[int], frozenset[int]], Side] = {}
        self.classes: dict[frozenset[int], Side] = {}
        self.keys: dict[object, Side] = {}
        self.dirnames: dict[str, frozenset[int]] = {}
        self.cands: dict[tuple[str, frozenset[int], bool], Candidates] = {}
        # What each directory passes on; its state as names that are not special see it (the
        # parts only special names need left out: directories told apart by those alone share
        # a state, and its memo of each suffix's zones); with those parts, where it has some.
        self.dirs = {"": Dir({}, NONE, NONE)}
        self.dstates = {"": self._state({}, NONE, frozenset({ROOT}) & self.plain_parts)}
        self.deeps = {} if ROOT in self.plain_parts else {"": frozenset({ROOT})}

    def fill(self, paths: Sequence[str]) -> None:
        """Append each path to the `found` list of each zone it is in."""
        state, adds = self.state, self.adds
        special = self.index.special | {""}  # "" ("a/"): no name, asked of pathspec
        # A needle no path holds is not looked for in each name (one search of all, in C).
        needles = self.index.needles and _held(self.index.needles, paths)
        one = needles[0] if len(needles) == 1 else None  # (most configs have at most one)
        last, st = None, self.odd
        memo = st.names
        for p in paths:  # the hot loop: a few dict lookups per path
            d, _, b = p.rpartition("/")
            if d != last:  # git lists a directory's files together: one lookup per run of them
                last, st = d, state(d)
                memo = st.names
            # A name's class is its suffix's (the key: the suffix without its dot; "/" and the
            # last character for a name without a dot), unless it is a pattern's literal name,
            # or holds the longest literal of another glob. (`rpartition` takes one argument
            # and is called without parsing a tuple of them, as `rfind` is: a third cheaper.)
            _, dot, key = b.rpartition(".")
            if b in special or (needles and (one in b if one else any(n in b for n in needles))):
                full = self.full(d)
                if (todo := full.names.get((b,))) is None:
                    todo = full.names[b,] = adds(full, (b,))
            else:
                if not dot:
                    key = "/" + b[-1:]
                if (todo := memo.get(key)) is None:
                    todo = memo[key] = adds(st, key)
            for add in todo:
                add(p)

    def _best(self, win: dict[int, int], rules: Iterable[int]) -> dict[int, int]:
        for r in rules:
            zone, rank, _ = self.index.rules[r]
            if (now := win.get(zone)) is None or rank > self.index.rules[now][1]:
                win[zone] = r
        return win

    def _side(self, win: dict[int, int], more: Iterable[int], **fields: object) -> Side:
        inc = frozenset(z for z, r in win.items() if self.index.rules[r][2])
        mask = sum(1 << z for z in win) | sum(1 << z for z in set(more)) << len(self.found)
        adds = tuple([self.appends[z] for z in inc])
        zones = frozenset((*win, *more))
        return Side(win, zones, mask, inc, adds, **fields)  # type: ignore[arg-type]

    def _state(self, win: dict[int, int], key: frozenset[int], parts: frozenset[int]) -> Side:
        if (st := self.states.get((key, parts))) is None:
            more = [z for x in parts for z in self.index.part_zones.get(x, ())]
            st = self.states[key, parts] = self._side(win, more, parts=parts)
        return st

    def full(self, d: str) -> Side:
        """The state of `d` (known already) as special names see it: with every part."""
        if (deep := self.deeps.get(d)) is None:
            return self.state(d)
        info = self.dirs[d]
        return self.states.get((info.key, deep)) or self._state(info.win, info.key, deep)

    def state(self, d: str) -> Side:
        """What decides for the files directly in `d` whose names are not special: the tests
        above, and the parts equal to it that such a name may need."""
        if (st := self.dstates.get(d)) is not None:
            return st
        if d.startswith(("/", "./")) or d.endswith("/") or d == "." or "//" in d or "\n" in d:
            return self.odd  # (an odd directory is never kept)
        cut = d.rfind("/")
        if (up := self.dirs.get(d[: max(cut, 0)])) is None:
            up = self._walk(d[:cut])
        info, slash, flat, tails = self._child(up, d, cut)
        if (
            flat
            and slash.endswith(tails)
            and (
                parts := [  # (the `DirTest` pre-checks inline, here and below: per directory)
                    t.part
                    for t in flat
                    if slash.endswith(t.tail)
                    and slash.startswith(t.lit)
                    and (  # a literal's test (`DirTest.hit`), without a call
                        slash == t.text or (t.below and slash.endswith(t.below))
                        if t.text
                        else t.hit(slash, full=True)
                    )
                ]
            )
        ):
            deep = info.deep.union(parts)
            plain = deep & self.plain_parts
            if plain != deep:
                self.deeps[d] = deep
            if (st := self.states.get((info.key, plain))) is None:
                st = self._state(info.win, info.key, plain)
        else:
            if (st := info.bare) is None:  # most often: shared with its siblings
                plain = info.deep & self.plain_parts
                info.extra = plain != info.deep
                st = self.states.get((info.key, plain)) or self._state(info.win, info.key, plain)
                info.bare = st
            if info.extra:
                self.deeps[d] = info.deep
        self.dstates[d] = st
        return st

    def _walk(self, d: str) -> Dir:
        """What `d` passes on, and every directory above it not yet known."""
        chain = [d]  # up to a known directory, then down: no recursion on deep paths
        while (up := chain[-1][: max(chain[-1].rfind("/"), 0)]) not in self.dirs:
            chain.append(up)
        info = self.dirs[up]
        for sub in reversed(chain):
            info = self._child(info, sub, sub.rfind("/"))[0]
        return info

    def _child(
        self, info: Dir, d: str, cut: int
    ) -> tuple[Dir, str, list[DirTest], tuple[str, ...]]:
        """What the directory `d` below `info`'s (its last "/" at `cut`, -1: none) passes on
        (kept), "<d>/", and the flat parts that may hold there, with their tails."""
        slash, name = d + "/", d[cut + 1 :]
        if (ids := self.dirnames.get(name)) is None:
            ids = self.dirnames[name] = self.index.dirnames.classify(name)
        if cut < 0:  # a top directory
            tests, flat, tails = self.cands.get((slash, ids, False)) or self._cands(
                slash, ids, False
            )
        elif (cands := info.cands.get(ids)) is not None:  # most often
            tests, flat, tails = cands
        else:
            key = (d[: d.find("/") + 1], ids, True)
            tests, flat, tails = info.cands[ids] = self.cands.get(key) or self._cands(*key)
        if slash.endswith(tails[0]) and (  # one `endswith` for all, first
            hits := [
                t
                for t in tests
                if slash.endswith(t.tail) and slash.startswith(t.lit) and t.hit(slash)
            ]
        ):
            win = self._best(dict(info.win), [t.rule for t in hits if t.rule >= 0])
            deep = info.deep.union(t.part for t in hits if t.part >= 0)
            new = Dir(win, frozenset(win.values()), deep)
        elif cut < 0:  # (a top directory's Dir is its own: see `Dir.cands`)
            new = Dir(info.win, info.key, info.deep)
        elif info.plain is not None:  # the common case: nothing ends here
            new = info.plain
        else:
            new = info.plain = Dir(info.win, info.key, info.deep)
        self.dirs[d] = new
        return new, slash, flat, tails[1]

    def _cands(self, top: str, ids: frozenset[int], deeper: bool) -> Candidates:
        """The tests and flat parts (and tails) that may end at a directory named like `ids`."""
        last = ids if deeper else (*ids, -1)  # `*/**` matches "/": at every top directory
        tests, flat = (
            [t for n in last for t in by.get(n, ()) if _allows(t.lit, top)]
            for by in self.index.by_last
        )
        tails = (tuple({t.tail for t in tests}), tuple({t.tail for t in flat}))
        self.cands[top, ids, deeper] = (tests, flat, tails)
        return tests, flat, tails

    def name_class(self, key: str | tuple[str]) -> Side:
        """The class of the names with this key: a suffix without its dot, "/" and the last
        character of a name without a dot, or (a special name,)."""
        index, special = self.index, isinstance(key, tuple)
        # A name not special: what `classify` reads of it, its last-dot suffix (or last char).
        name = key[0] if special else key[1:] if key[:1] == "/" else f".{key}"
        if not name or "\n" in name:  # "a/": no name; "a\n": `$` matches before the newline
            return self.odd
        names = index.names.classify(name, special=special)
        if names not in self.classes:
            full = [rx for n in names for rx in index.full.get(n, ())]
            win = self._best(self._best({}, index.always), [r for r, x in full if x < 0])
            cond = [(r, x) for r, x in full if x >= 0]
            more = [index.rules[r][0] for r, _ in cond]
            self.classes[names] = self._side(win, more, cond=cond)
        c = self.keys[key] = self.classes[names]
        return c

    def adds(self, st: Side, key: str | tuple[str]) -> Adds:
        """The zones of the files in a directory of state `st` whose names have this key."""
        if (c := self.keys.get(key)) is None:
            c = self.name_class(key)
        if not st.mask & c.mask:  # they decide in different zones: each its own
            return st.adds + c.adds
        if (adds := st.memo.get(c)) is None:  # both decide something in one zone: resolve once
            adds = st.memo[c] = self.both(st, c)
        return adds

    def both(self, st: Side, c: Side) -> Adds:
        """The zones of a file whose directory and name both decide something in one zone."""
        if st.mask == -1 or c.mask == -1:
            return (self.exact,)
        both = st.zones & c.zones  # (a part's rules' zones are in `st.zones` already)
        rules = [side.win[z] for side in (st, c) for z in both if z in side.win]
        win = self._best({}, rules + [r for r, x in c.cond if x in st.parts])
        out = {z for z, r in win.items() if self.index.rules[r][2]}
        return tuple([self.appends[z] for z in out | (st.inc - c.zones) | (c.inc - st.zones)])


def _held(needles: tuple[str, ...], paths: Sequence[str]) -> tuple[str, ...]:
    """The needles some path holds (a path's directory too: then it is looked for in names)."""
    text = "\0".join(paths)
    return tuple(n for n in needles if n in text)


def _allows(lit: str, top: str) -> bool:
    """Can a match starting with `lit` end at or below the top directory "<top>/"?"""
    return top.startswith(lit) or lit.startswith(top)
