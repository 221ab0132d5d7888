"""Reading zone patterns: each pathspec regex cut into what the directory and the name decide.

index_zones(zones)   every zone's gitignore patterns, as pathspec would compile them, indexed
                     for the matcher (``memo``): tests of "<dir>/", name classes, and the rules
                     they offer
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from gradgate.bot.config.patterns import gitignore_regex
from gradgate.bot.config.zone import Zone
from gradgate.bot.plan.safe_regex import compile_linear
from pathspec.util import NORMALIZE_PATH_SEPS

# A path is in a zone iff `GitIgnoreSpec.from_lines(zone.paths).match_file(path)`, with
# pathspec's pure "simple" backend. Each pattern's pathspec regex is cut, as pathspec's re2
# backend cuts it, into what the directory decides and what the file name decides, so that
# bot.plan.zones.memo can ask each piece once per distinct directory or name. A pathspec regex
# is a head, `^(?:.+/)?` (any depth) or `^` (root); a body of segments (literals, `[^/]*`,
# `[^/]+`, `[^/]`, `[...]`) joined by `/` or `(?:/.+)?/`; a tail: `(?:(?P<ps_d>/)|$)` the path
# (priority 2) or a directory above it (1), `(?P<ps_d>/)` a directory above it (1), `/` anything
# below a directory (2). The winning match -- highest priority, then last -- includes the path
# or not. So:
# - a match ending in "/" lies within "<dir>/": a directory test, inherited by subdirectories;
# - a `$` match of "<x>/<seg>" (seg without "/") is `<head><x>/` matching all of "<dir>/" (a
#   "part") and seg the name; where both could match, the greedy head finds `$` first;
# - any other regex shape sends its zone to plain pathspec (`slow`); so do odd paths.
_HEADS = ("^(?:.+/)?", "^")
_TAILS = (("(?:(?P<ps_d>/)|$)", 0), ("(?P<ps_d>/)", 1), ("/", 2))  # kind 0: both halves
_TOKEN = re.compile(r"\(\?:/\.\+\)\?|\[\^/][*+]?|\[\^?]?[^][]*]|\\[^\w/]|[^.^$*+?{}()|\\[\]/]|/")
_DSTAR, _ANY = "(?:/.+)?", ("[^/]*", "[^/]+")
ROOT = 0  # the part "in the root", of `/a.py`: every directory-less path has it
NONE: frozenset[int] = frozenset()


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
    cut = len(tokens) - 1 - tokens[::-1].index("/") if "/" in tokens else -1
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


# The same readings, for bot.plan.zones.gaps, which asks each pattern on its own. A plan reads
# each regex here and there: cached per process (callers never change the tokens they get).
parse_regex = lru_cache(maxsize=8192)(_parse)
literal = _literal


class Names:
    """Which slash-free segment regexes (ids) a file or directory name fully matches."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.exact: dict[str, frozenset[int]] = {}  # literals only: by the name
        self.ext: dict[str, frozenset[int]] = {}  # `[^/]*\.xyz`: by last-dot suffix (with any)
        self.any = NONE  # `[^/]*`s and at most one `[^/]+`: every name
        self.checked: list[tuple[str, Any, int]] = []  # longest literal; regex (linear time)

    def add(self, tokens: list[str]) -> int:
        if (piece := "".join(tokens)) not in self.ids:
            i = self.ids[piece] = len(self.ids)
            text, rest = _literal(tokens), _literal(tokens[1:])  # a literal token is one char
            if len(text) == len(tokens):
                self.exact[text] = self.exact.get(text, NONE) | {i}
            elif tokens[0] == "[^/]*" and len(rest) == len(tokens) - 1 and rest.rfind(".") == 0:
                self.ext[rest] = self.ext.get(rest, self.any) | {i}
            elif all(t in _ANY for t in tokens) and tokens.count("[^/]+") <= 1:
                self.any |= {i}
                self.ext = {key: ids | {i} for key, ids in self.ext.items()}
            else:
                runs = "".join(t[-1] if len(t) == 1 or t[0] == "\\" else "\0" for t in tokens)
                self.checked.append((max(runs.split("\0"), key=len), compile_linear(piece), i))
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
class DirTest:
    """A regex for "<dir>/"; it can end there only if the directory's name matches `last`.

    It can end at the end of "<dir>/" only if that ends with `tail` and starts with `lit`:
    bot.plan.zones.memo checks both, inline, before `hit`. "<dir>/" never starts with "/" and
    holds no newline (such paths are odd: pathspec answers for them).
    """

    source: str
    lit: str  # every match starts with this ...
    tail: str  # ... and, to end at this directory, ends with this
    last: int  # a `Names` id of directory names; -1: any
    rule: int  # the rule it offers, or -1
    part: int  # the part it makes hold, or -1
    text: str = ""  # all of "<body>/" when the body has no wildcard: a string test will do
    below: str = ""  # "/" + text when the head is `^(?:.+/)?`: the body may start deeper
    rx: Any = None  # compiled (linear time) when first needed: most tests never run

    def hit(self, slash: str, *, full: bool = False) -> bool:
        """`search` for a test (a match may end above: inherited), `fullmatch` for a part."""
        if self.text:  # the regex's own answer, without running it (most tests are literal)
            if full:
                return slash == self.text or (bool(self.below) and slash.endswith(self.below))
            return slash.startswith(self.text) or (bool(self.below) and self.below in slash)
        self.rx = self.rx or compile_linear(self.source)
        return (self.rx.fullmatch if full else self.rx.search)(slash) is not None


class PatternIndex:
    """The patterns of every fast zone, indexed by what each needs to see of a path."""

    def __init__(self) -> None:
        self.names, self.dirnames = Names(), Names()  # last segments of files, directories
        self.rules: list[tuple[int, tuple[int, int], bool]] = []  # zone, rank, include
        self.tests: tuple[list[DirTest], list[DirTest]] = ([], [])  # inherited; flat parts
        self.part_ids: dict[str, int] = {"": ROOT}
        self.full: dict[int, list[tuple[int, int]]] = {}  # name id -> (rule, part; -1: none)
        self.always: list[int] = []  # `*` and `**`: every path, priority 2

    def _rule(self, zone: int, order: int, include: bool, prio: int) -> int:
        self.rules.append((zone, (prio, order), include))  # the highest rank wins
        return len(self.rules) - 1

    def _test(self, flat: bool, head: str, tokens: list[str], rule: int, part: int) -> None:
        last = self.dirnames.add(seg) if (seg := _split(tokens)[1]) else -1
        text = _literal(tokens)
        lit, tail = text if head == "^" else "", _literal(tokens, end=True) + "/"
        test = DirTest(f"{head}{''.join(tokens)}/", lit, tail, last, rule, part)
        if tokens and len(text) == len(tokens):  # (literals: 1 character)
            test.text, test.below = text + "/", "" if head == "^" else f"/{text}/"
        self.tests[flat].append(test)

    def add(self, zone: int, order: int, include: bool, parsed: tuple[str, list[str], int]) -> None:
        head, tokens, kind = parsed
        if kind == 3:
            self.always.append(self._rule(zone, order, include, 2))
            return
        # Every kind matches a path whose "<dir>/" `<head><body>/` matches: re2's dir half.
        self._test(False, head, tokens, self._rule(zone, order, include, kind or 1), -1)
        if kind == 0:  # ... and kind 0 also the path "<x>/<seg>" itself: part x, name seg
            x, seg = _split(tokens)
            part = self._part(head, x) if x else -1 if head != "^" else ROOT
            rule = self._rule(zone, order, include, 2)
            self.full.setdefault(self.names.add(seg), []).append((rule, part))

    def _part(self, head: str, x: list[str]) -> int:
        if (key := f"{head}{''.join(x)}") not in self.part_ids:
            part = self.part_ids[key] = len(self.part_ids)
            deep = x[-1] == _DSTAR  # `<x'>(?:/.+)?/` holds at and below where `<x'>/` does
            self._test(not deep, head, x[:-1] if deep else x, -1, part)
        return self.part_ids[key]

    def finish(self) -> PatternIndex:
        self.special = frozenset(self.names.exact)  # names whose class is more than a suffix
        self.needles = tuple({n for n, _, _ in self.names.checked})
        self.part_zones: dict[int, set[int]] = {}  # part -> zones of the rules needing it
        for r, x in (rx for rules in self.full.values() for rx in rules):
            self.part_zones.setdefault(x, set()).add(self.rules[r][0])
        self.by_last: tuple[dict[int, list[DirTest]], dict[int, list[DirTest]]] = ({}, {})
        for by, tests in zip(self.by_last, self.tests, strict=True):
            for t in tests:
                by.setdefault(t.last, []).append(t)
        return self


def index_zones(zones: Sequence[Zone]) -> tuple[PatternIndex, frozenset[int]]:
    """The index of every zone whose regexes all have a known shape; the others (`slow`)."""
    index, slow = PatternIndex(), set()
    for zone, z in enumerate(zones):  # the regexes `GitIgnoreSpec.from_lines` would build
        regexes = [gitignore_regex(line) for line in z.paths if line]
        parsed = [(i, include, parse_regex(rx)) for i, (rx, include) in enumerate(regexes) if rx]
        if any(shape is None for _, _, shape in parsed) or NORMALIZE_PATH_SEPS:
            slow.add(zone)  # (on Windows too, where pathspec turns "\\" into "/")
            continue
        for order, include, shape in parsed:
            assert shape is not None and include is not None
            index.add(zone, order, include, shape)
    return index.finish(), frozenset(slow)
