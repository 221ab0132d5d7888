"""Pure zone matching: changed paths -> the zones they fall in (gitignore patterns via pathspec)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pathspec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern
from pathspec.util import NORMALIZE_PATH_SEPS

from bot.config import Zone

# A path is in a zone iff `GitIgnoreSpec.from_lines(zone.paths).match_file(path)`, with
# pathspec's pure "simple" backend. Asked per zone and path, a 100,000-path diff and 500
# patterns is 50M regex calls; so each pattern's pathspec regex is cut, as pathspec's re2
# backend cuts it, into what the directory decides and what the file name decides, and each
# piece runs once per distinct directory or name. A pathspec regex is a head, `^(?:.+/)?` (any
# depth) or `^` (root); a body of segments (literals, `[^/]*`, `[^/]+`, `[^/]`, `[...]`) joined
# by `/` or `(?:/.+)?/`; a tail: `(?:(?P<ps_d>/)|$)` the path (priority 2) or a directory above
# it (1), `(?P<ps_d>/)` a directory above it (1), `/` anything below a directory (2). The
# winning match -- highest priority, then last -- includes the path or not. So:
# - a match ending in "/" lies within "<dir>/": a directory test, inherited by subdirectories;
# - a `$` match of "<x>/<seg>" (seg without "/") is `<head><x>/` matching all of "<dir>/" (a
#   "part") and seg the name; where both could match, the greedy head finds `$` first;
# - any other regex shape sends its zone to plain pathspec (`slow`); so do odd paths.
_HEADS = ("^(?:.+/)?", "^")
_TAILS = (("(?:(?P<ps_d>/)|$)", 0), ("(?P<ps_d>/)", 1), ("/", 2))  # kind 0: both halves
_TOKEN = re.compile(r"\(\?:/\.\+\)\?|\[\^/][*+]?|\[\^?]?[^][]*]|\\[^\w/]|[^.^$*+?{}()|\\[\]/]|/")
_DSTAR, _ANY, _ROOT = "(?:/.+)?", ("[^/]*", "[^/]+"), 0  # part 0: "in the root", of `/a.py`
_NONE: frozenset[int] = frozenset()
Adds = tuple[Callable[[str], None], ...]  # the `list.append` of each zone a path is in
_Cands = tuple[list["_Test"], list["_Test"], tuple[tuple[str, ...], tuple[str, ...]]]


def _literal(tokens: list[str], *, end: bool = False) -> str:
    """The text every match of `tokens` starts (with `end`: ends) with."""
    out = ""
    for t in reversed(tokens) if end else tokens:
        if len(t) > 1 and t[0] != "\\":  # a wildcard, a bracket, `(?:/.+)?`
            break
        out = t[-1] + out if end else out + t[-1]
    return out


def _split(tokens: list[str]) -> tuple[list[str], list[str]]:
    """The tokens before the last "/", and after it: the last segment."""
    cut = max((i for i, t in enumerate(tokens) if t == "/"), default=-1)
    return tokens[: max(cut, 0)], tokens[cut + 1 :]


def _parse(regex: str) -> tuple[str, list[str], int] | None:
    """(head, body tokens, tail kind) of a pathspec regex; None for a shape not known here."""
    if regex == ".":  # pathspec's regex for `*` and `**`: every path
        return ("", [], 3)
    head = next((h for h in _HEADS if regex.startswith(h)), "")
    tail, kind = next(((t, k) for t, k in _TAILS if regex.endswith(t)), ("", -1))
    body = regex[len(head) : len(regex) - len(tail)]
    tokens = _TOKEN.findall(body)
    if kind < 0 or "".join(tokens) != body or bool(head) != bool(tokens):
        return None
    if any(
        t == "/" and (i in (0, len(tokens) - 1) or tokens[i + 1] == "/")
        for i, t in enumerate(tokens)
    ):
        return None  # an empty segment ("//a", "a//b"): a path with one is odd
    try:  # pathspec turns `[!a]` into `[^a]`, which matches "/": not within one segment
        if any(t[0] == "[" and t[:4] != "[^/]" and re.fullmatch(t, "/") for t in tokens):
            return None
    except re.error:  # `[z-a]`: let pathspec report it
        return None
    return None if _DSTAR in _split(tokens)[1] else (head, tokens, kind)


class _Names:
    """Which slash-free segment regexes (ids) a file or directory name fully matches."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.exact: dict[str, frozenset[int]] = {}  # literals only: by the name
        self.ext: dict[str, frozenset[int]] = {}  # `[^/]*\.xyz`: by last-dot suffix (with any)
        self.any = _NONE  # `[^/]*`s and at most one `[^/]+`: every name
        self.checked: list[tuple[str, re.Pattern[str], int]] = []  # longest literal; regex

    def add(self, tokens: list[str]) -> int:
        if (piece := "".join(tokens)) not in self.ids:
            i = self.ids[piece] = len(self.ids)
            text, rest = _literal(tokens), _literal(tokens[1:])  # a literal token is one char
            if len(text) == len(tokens):
                self.exact[text] = self.exact.get(text, _NONE) | {i}
            elif tokens[0] == "[^/]*" and len(rest) == len(tokens) - 1 and rest.rfind(".") == 0:
                self.ext[rest] = self.ext.get(rest, self.any) | {i}
            elif all(t in _ANY for t in tokens) and tokens.count("[^/]+") <= 1:
                self.any |= {i}
                self.ext = {key: ids | {i} for key, ids in self.ext.items()}
            else:
                runs = "".join(t[-1] if len(t) == 1 or t[0] == "\\" else "\0" for t in tokens)
                self.checked.append((max(runs.split("\0"), key=len), re.compile(piece), i))
        return self.ids[piece]

    def classify(self, name: str, *, special: bool = True) -> frozenset[int]:
        """The ids `name` matches; without `special`, for a name not exact and without needle."""
        found = self.ext.get(name[name.rfind(".") :], self.any)  # shared: its hash is cached
        if special:
            more = [i for n, rx, i in self.checked if n in name and rx.fullmatch(name)]
            if more or name in self.exact:
                found = found.union(more, self.exact.get(name, ()))
        return found


@dataclass(slots=True, eq=False)
class _Test:
    """A regex for "<dir>/"; it can end there only if the directory's name matches `last`."""

    source: str
    lit: str  # every match starts with this ...
    tail: str  # ... and, to end at this directory, ends with this
    last: int  # a `_Names` id of directory names; -1: any
    rule: int  # the rule it offers, or -1
    part: int  # the part it makes hold, or -1
    rx: re.Pattern[str] | None = None  # compiled when first needed: most tests never run

    def ends(self, slash: str) -> bool:
        """Can a match end at the end of "<dir>/"? Cheap, before the regex."""
        return slash.endswith(self.tail) and slash.startswith(self.lit)

    def hit(self, slash: str, *, full: bool = False) -> bool:
        """`search` for a test (a match may end above: inherited), `fullmatch` for a part."""
        self.rx = self.rx or re.compile(self.source)
        return (self.rx.fullmatch if full else self.rx.search)(slash) is not None


class _Index:
    """The patterns of every fast zone, indexed by what each needs to see of a path."""

    def __init__(self) -> None:
        self.names, self.dirnames = _Names(), _Names()  # last segments of files, directories
        self.rules: list[tuple[int, tuple[int, int], bool]] = []  # zone, rank, include
        self.tests: tuple[list[_Test], list[_Test]] = ([], [])  # inherited; flat parts
        self.part_ids: dict[str, int] = {"": _ROOT}
        self.full: dict[int, list[tuple[int, int]]] = {}  # name id -> (rule, part; -1: none)
        self.always: list[int] = []  # `*` and `**`: every path, priority 2

    def _rule(self, zone: int, order: int, include: bool, prio: int) -> int:
        self.rules.append((zone, (prio, order), include))  # the highest rank wins
        return len(self.rules) - 1

    def _test(self, flat: bool, head: str, tokens: list[str], rule: int, part: int) -> None:
        last = self.dirnames.add(seg) if (seg := _split(tokens)[1]) else -1
        lit, tail = _literal(tokens) if head == "^" else "", _literal(tokens, end=True) + "/"
        self.tests[flat].append(_Test(f"{head}{''.join(tokens)}/", lit, tail, last, rule, part))

    def add(self, zone: int, order: int, include: bool, parsed: tuple[str, list[str], int]) -> None:
        head, tokens, kind = parsed
        if kind == 3:
            self.always.append(self._rule(zone, order, include, 2))
            return
        # Every kind matches a path whose "<dir>/" `<head><body>/` matches: re2's dir half.
        self._test(False, head, tokens, self._rule(zone, order, include, kind or 1), -1)
        if kind == 0:  # ... and kind 0 also the path "<x>/<seg>" itself: part x, name seg
            x, seg = _split(tokens)
            part = self._part(head, x) if x else -1 if head != "^" else _ROOT
            rule = self._rule(zone, order, include, 2)
            self.full.setdefault(self.names.add(seg), []).append((rule, part))

    def _part(self, head: str, x: list[str]) -> int:
        if (key := f"{head}{''.join(x)}") not in self.part_ids:
            part = self.part_ids[key] = len(self.part_ids)
            deep = x[-1] == _DSTAR  # `<x'>(?:/.+)?/` holds at and below where `<x'>/` does
            self._test(not deep, head, x[:-1] if deep else x, -1, part)
        return self.part_ids[key]

    def finish(self) -> _Index:
        self.special = frozenset(self.names.exact)  # names whose class is more than a suffix
        self.needles = tuple({n for n, _, _ in self.names.checked})
        self.part_zones: dict[int, set[int]] = {}  # part -> zones of the rules needing it
        for r, x in (rx for rules in self.full.values() for rx in rules):
            self.part_zones.setdefault(x, set()).add(self.rules[r][0])
        self.by_last: tuple[dict[int, list[_Test]], dict[int, list[_Test]]] = ({}, {})
        for by, tests in zip(self.by_last, self.tests, strict=True):
            for t in tests:
                by.setdefault(t.last, []).append(t)
        return self


@dataclass(slots=True, eq=False)
class _Side:
    """What a directory (a state) or a name (a class) decides, shared by all alike."""

    win: dict[int, int]  # zone -> winning rule (of a class: among those needing no part)
    zones: frozenset[int]  # the zones it decides something in
    mask: int  # winners' zones as bits, then those of the parts it has (or a class needs)
    inc: frozenset[int]  # the zones its winners include
    adds: Adds
    parts: frozenset[int] = _NONE  # a state's
    cond: list[tuple[int, int]] = field(default_factory=list)  # a class's: (rule, part)
    memo: dict[_Side, Adds] = field(default_factory=dict)  # a state's, per class it meets


@dataclass(slots=True, eq=False)
class _Dir:
    win: dict[int, int]  # zone -> winning rule among the tests matching "<dir>/"
    key: frozenset[int]  # those rules: directories with equal keys and parts resolve alike
    deep: frozenset[int]  # parts that hold here and below
    flat: list[_Test]  # flat parts that may hold here
    tails: tuple[str, ...] = ()  # theirs, for one `endswith` before each test's
    state: _Side | None = None  # what decides for its files, once asked
    plain: _Dir | None = None  # shared by its subdirectories where nothing ends


class _Run:
    """One `match` call: its memo tables per directory, name, state and class."""

    def __init__(self, ix: _Index, found: list[list[str]], exact: Callable[[str], None]) -> None:
        self.ix, self.found, self.exact = ix, found, exact
        self.appends = [f.append for f in found]
        self.odd = _Side({}, _NONE, -1, _NONE, (exact,))
        self.states: dict[tuple[frozenset[int], frozenset[int]], _Side] = {}
        self.classes: dict[frozenset[int], _Side] = {}
        self.keys: dict[object, _Side] = {}
        self.dirnames: dict[str, frozenset[int]] = {}
        self.cands: dict[tuple[str, frozenset[int], bool], _Cands] = {}
        self.dirs = {
            "": _Dir({}, _NONE, _NONE, [], state=self._state({}, _NONE, frozenset({_ROOT})))
        }

    def _best(self, win: dict[int, int], rules: Iterable[int]) -> dict[int, int]:
        for r in rules:
            zone, rank, _ = self.ix.rules[r]
            if (now := win.get(zone)) is None or rank > self.ix.rules[now][1]:
                win[zone] = r
        return win

    def _side(self, win: dict[int, int], more: Iterable[int], **fields: object) -> _Side:
        inc = frozenset(z for z, r in win.items() if self.ix.rules[r][2])
        mask = sum(1 << z for z in win) | sum(1 << z for z in set(more)) << len(self.found)
        adds = tuple([self.appends[z] for z in inc])
        zones = frozenset((*win, *more))
        return _Side(win, zones, mask, inc, adds, **fields)  # type: ignore[arg-type]

    def _state(self, win: dict[int, int], key: frozenset[int], parts: frozenset[int]) -> _Side:
        if (key, parts) not in self.states:
            more = [z for x in parts for z in self.ix.part_zones.get(x, ())]
            self.states[key, parts] = self._side(win, more, parts=parts)
        return self.states[key, parts]

    def state(self, d: str) -> _Side:
        """What decides for the files directly in `d`: the tests above, the parts equal to it."""
        if d.startswith(("/", "./")) or d.endswith("/") or d == "." or "//" in d or "\n" in d:
            return self.odd
        if (info := self.dirs.get(d)) is None:
            chain = [d]  # up to a known directory, then down: no recursion on deep paths
            while (up := chain[-1][: max(chain[-1].rfind("/"), 0)]) not in self.dirs:
                chain.append(up)
            info = self.dirs[up]
            for sub in reversed(chain):
                info = self.dirs[sub] = self._child(info, sub)
        if info.state is None:
            slash = d + "/"
            flat = info.flat if slash.endswith(info.tails) else ()
            parts = [t.part for t in flat if t.ends(slash) and t.hit(slash, full=True)]
            info.state = self._state(info.win, info.key, info.deep.union(parts))
        return info.state

    def _child(self, info: _Dir, d: str) -> _Dir:
        slash, name = d + "/", d[d.rfind("/") + 1 :]
        if (ids := self.dirnames.get(name)) is None:
            ids = self.dirnames[name] = self.ix.dirnames.classify(name)
        key = (d[: d.find("/") + 1] or slash, ids, "/" in d)
        tests, flat, tails = self.cands.get(key) or self._cands(*key)
        tests = tests if slash.endswith(tails[0]) else []  # one `endswith` for all, first
        if hits := [t for t in tests if t.ends(slash) and t.hit(slash)]:
            win = self._best(dict(info.win), [t.rule for t in hits if t.rule >= 0])
            deep = info.deep.union(t.part for t in hits if t.part >= 0)
            return _Dir(win, frozenset(win.values()), deep, flat, tails[1])
        if flat:
            return _Dir(info.win, info.key, info.deep, flat, tails[1])
        if info.plain is None:  # the common case: nothing ends here
            info.plain = _Dir(info.win, info.key, info.deep, [])
        return info.plain

    def _cands(self, top: str, ids: frozenset[int], deeper: bool) -> _Cands:
        """The tests and flat parts (and tails) that may end at a directory named like `ids`."""
        last = ids if deeper else (*ids, -1)  # `*/**` matches "/": at every top directory
        tests, flat = (
            [t for n in last for t in by.get(n, ()) if _allows(t.lit, top)]
            for by in self.ix.by_last
        )
        tails = (tuple({t.tail for t in tests}), tuple({t.tail for t in flat}))
        self.cands[top, ids, deeper] = (tests, flat, tails)
        return tests, flat, tails

    def cls(self, key: str | tuple[str]) -> _Side:
        """The class of the names with this key: a last-dot suffix, or (a special name,)."""
        ix, name = self.ix, key[0] if isinstance(key, tuple) else key
        if not name or "\n" in name:  # "a/": no name; "a\n": `$` matches before the newline
            return self.odd
        names = ix.names.classify(name, special=isinstance(key, tuple))
        if names not in self.classes:
            full = [rx for n in names for rx in ix.full.get(n, ())]
            win = self._best(self._best({}, ix.always), [r for r, x in full if x < 0])
            cond = [(r, x) for r, x in full if x >= 0]
            more = [ix.rules[r][0] for r, _ in cond]
            self.classes[names] = self._side(win, more, cond=cond)
        c = self.keys[key] = self.classes[names]
        return c

    def both(self, st: _Side, c: _Side) -> Adds:
        """The zones of a file whose directory and name both decide something in one zone."""
        if st.mask == -1 or c.mask == -1:
            return (self.exact,)
        both = st.zones & c.zones  # (a part's rules' zones are in `st.zones` already)
        rules = [side.win[z] for side in (st, c) for z in both if z in side.win]
        win = self._best({}, rules + [r for r, x in c.cond if x in st.parts])
        out = {z for z, r in win.items() if self.ix.rules[r][2]}
        return tuple([self.appends[z] for z in out | (st.inc - c.zones) | (c.inc - st.zones)])


def _allows(lit: str, top: str) -> bool:
    """Can a match starting with `lit` end at or below the top directory "<top>/"?"""
    return top.startswith(lit) or lit.startswith(top)


@dataclass(frozen=True)
class ZoneMatcher:
    """Compiled zone patterns. Build once per config, match many paths."""

    names: tuple[str, ...]
    patterns: tuple[tuple[str, ...], ...]  # each zone's
    slow: frozenset[int]  # zones with a regex shape not known here: asked of plain pathspec
    index: _Index = field(repr=False, compare=False)

    @classmethod
    def compile(cls, zones: Sequence[Zone]) -> ZoneMatcher:
        index, slow = _Index(), set()
        for zone, z in enumerate(zones):  # the regexes `GitIgnoreSpec.from_lines` would build
            regexes = [GitIgnoreSpecPattern.pattern_to_regex(line) for line in z.paths if line]
            parsed = [(i, include, _parse(rx)) for i, (rx, include) in enumerate(regexes) if rx]
            if any(shape is None for _, _, shape in parsed) or NORMALIZE_PATH_SEPS:
                slow.add(zone)  # (on Windows too, where pathspec turns "\\" into "/")
                continue
            for order, include, shape in parsed:
                assert shape is not None and include is not None
                index.add(zone, order, include, shape)
        names, patterns = tuple(z.name for z in zones), tuple(z.paths for z in zones)
        return cls(names, patterns, frozenset(slow), index.finish())

    @cached_property
    def specs(self) -> tuple[pathspec.GitIgnoreSpec, ...]:
        # The "simple" backend is the reference: pure Python, always there. The re2 backend
        # resolves some `!` orders differently (an include directory pattern after an exclude
        # file pattern), so "best" would make the answer depend on what is installed.
        return tuple(pathspec.GitIgnoreSpec.from_lines(p, backend="simple") for p in self.patterns)

    def match(self, paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Zone name -> the given paths inside it, in input order; zones with none omitted."""
        unique = list(dict.fromkeys(paths))
        found: list[list[str]] = [[] for _ in self.names]
        fast = [z for z in range(len(self.names)) if z not in self.slow]

        def exact(path: str) -> None:  # an odd path: asked of pathspec itself
            for z in fast:
                if self.specs[z].match_file(path):
                    found[z].append(path)

        run, tables = _Run(self.index, found, exact), dict[str, _Side]()
        keys, special, needles = run.keys, self.index.special, self.index.needles
        for p in unique:  # the hot loop: a few dict lookups per path
            d, _, b = p.rpartition("/")
            if (st := tables.get(d)) is None:
                st = tables[d] = run.state(d)
            key: str | tuple[str] = b[b.rfind(".") :]  # a name's class is its suffix's ...
            if b in special:  # ... unless it is a pattern's literal name, or holds the
                key = (b,)  # longest literal of another glob
            else:
                for needle in needles:
                    if needle in b:
                        key = (b,)
                        break
            if (c := keys.get(key)) is None:
                c = run.cls(key)
            if st.mask & c.mask:  # both decide something in one zone: resolve the pair once
                if (adds := st.memo.get(c)) is None:
                    adds = st.memo[c] = run.both(st, c)
                for add in adds:
                    add(p)
            else:
                for add in st.adds:
                    add(p)
                for add in c.adds:
                    add(p)
        for z in self.slow:
            found[z] = [p for p in unique if self.specs[z].match_file(p)]
        return {name: tuple(f) for name, f in zip(self.names, found, strict=True) if f}


def match_zones(zones: Sequence[Zone], paths: Iterable[str]) -> Mapping[str, tuple[str, ...]]:
    return ZoneMatcher.compile(zones).match(paths)
