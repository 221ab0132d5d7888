"""Zone patterns that match no file at head: protection rotting, found before anything runs (pure).

A file renamed with `git mv` silently leaves its zone, and a pattern with a typo (`Model.py`)
never had one. Each include pattern of each zone is asked on its own, exactly as pathspec reads
it (the regex ``GitIgnoreSpecPattern`` builds; `!` patterns only exclude, so they are not asked),
whether any file at head matches it. The paths asked are git's entries: the files and every
directory above them (`git ls-tree -r -t`). A directory's entry never changes an answer: git
has no empty directories, and a pattern that matches "<dir>" (pathspec's regexes end in `$` or
`/`) also matches every "<dir>/<file>" below it.

A large monorepo has 100,000 files and a plan must stay quick, so no pattern is tried on every
entry where a cheaper question has the same answer:

- an anchored pattern (`src/pkg/**`, `/configs/*.yaml`) can only match an entry that starts with
  the pattern's literal beginning: a slice of the sorted entries, found by bisection;
- a pattern of one segment at any depth matches iff the segment matches an entry's last name
  (for a pattern of directories, `layers/`, a name followed by `/`): a literal one (`model.py`)
  is looked up in the set of every entry's last name, built when first needed, and any other
  is asked of that set; `*.yaml` is a substring search of all the entries (`.yaml` before the
  NUL that ends an entry, or before a `/` for a directory's name);
- any other pattern, and every pattern in a repository with a line break in a path (where `$`
  in pathspec's regex also matches before it), is tried entry by entry, until one matches.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from functools import cached_property
from itertools import repeat
from operator import itemgetter

from gradgate.bot.config.patterns import gitignore_regex
from gradgate.bot.config.zone import Zone
from gradgate.bot.plan.safe_regex import compile_linear
from gradgate.bot.plan.zones.index import literal, parse_regex

_ANY_NAME = "[^/]*"  # how pathspec writes `*` inside a segment
_SLASH = repeat("/")


def unmatched(zones: Sequence[Zone], tracked: Tracked) -> dict[str, tuple[str, ...]]:
    """Zone name -> its include patterns that match none of the ``tracked`` files, in the
    config's order; zones whose patterns all match something are left out."""
    out: dict[str, tuple[str, ...]] = {}
    for zone in zones:
        missing = tuple(p for p in zone.paths if includes(p) and not tracked.matches(p))
        if missing:
            out[zone.name] = missing
    return out


def includes(pattern: str) -> bool:
    """Whether ``pattern`` includes files: not an `!` exclusion, nor a line gitignore skips."""
    return bool(pattern) and gitignore_regex(pattern)[1] is True


class Tracked:
    """The entries of one revision (files and directories) as `git ls-tree -r -t -z` lists them,
    and the last name of each, collected when first asked."""

    def __init__(self, listing: str) -> None:
        """``listing``: git's text, each entry ended by a NUL."""
        self.listing = f"\0{listing}"  # every entry between NULs: one string to search
        self.entries = listing.split("\0")
        self.entries.pop()  # the empty field after the last NUL

    @cached_property
    def names(self) -> set[str]:
        """The last name of every entry."""
        return set(map(itemgetter(2), map(str.rpartition, self.entries, _SLASH)))

    @cached_property
    def _sorted(self) -> list[str]:
        # git lists in byte order already (then sorting is one pass); names that are not UTF-8
        # arrive as surrogates, which may sort differently.
        return sorted(self.entries)

    @cached_property
    def odd(self) -> bool:
        return "\n" in self.listing

    def matches(self, pattern: str) -> bool:
        """Whether any entry matches the include ``pattern`` on its own."""
        regex = gitignore_regex(pattern)[0]
        assert regex is not None, pattern
        shape = None if self.odd else parse_regex(regex)
        head, tokens, kind = shape or ("", [], -1)
        if kind == 3:  # `*` or `**`: every path
            return bool(self.entries)
        if not head:  # a shape not read here (or `*/`: any path with a "/" in it)
            return self._any(regex)  # pathspec's own test
        if head == "^":  # anchored: only entries that start with its literal beginning
            start, entries = literal(tokens), self._sorted
            if len(start) == len(tokens):  # all literal: "<start>" (kind 0 only) or below it
                at = bisect.bisect_left(entries, start)
                below = bisect.bisect_left(entries, f"{start}/", at)
                return (kind == 0 and at < below and entries[at] == start) or (
                    below < len(entries) and entries[below].startswith(f"{start}/")
                )
            compiled = compile_linear(regex)
            for at in range(bisect.bisect_left(entries, start), len(entries)):
                if not entries[at].startswith(start):
                    return False
                if compiled.search(entries[at]):
                    return True
            return False
        if "/" in tokens:  # several segments at any depth: rare, asked of every entry
            return self._any(regex)
        # One segment at any depth: a last name (kind 0), or a directory's name (kinds 1, 2),
        # which is followed by a `/` in the entries below it.
        name, rest = literal(tokens), literal(tokens[1:])
        if len(name) == len(tokens):  # a literal name (each literal token is one character)
            if kind == 0:
                return name in self.names
            return f"/{name}/" in self.listing or f"\0{name}/" in self.listing
        if tokens[0] == _ANY_NAME and len(rest) == len(tokens) - 1:  # `*.yaml`
            return f"{rest}{'/' if kind else chr(0)}" in self.listing
        if kind == 0:
            segment = compile_linear("".join(tokens))
            return any(map(segment.fullmatch, self.names))
        return self._any(regex)

    def _any(self, regex: str) -> bool:
        """Whether pathspec's ``regex`` finds any entry (compiled only for the shapes asked so:
        the others never run a regex)."""
        return any(map(compile_linear(regex).search, self.entries))
