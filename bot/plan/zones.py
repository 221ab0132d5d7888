"""Pure zone matching: changed paths -> the zones they fall in, exactly as pathspec says.

Asked per zone and path, a 100,000-path diff and 500 patterns is 50M regex calls. Instead
``zone_index`` cuts every pattern's pathspec regex into what the directory part of a path decides
and what its name decides, and ``zone_run`` asks each piece once per distinct directory or name
(how, in its docstring): the hot loop is a few dict lookups per path. Patterns that do not cut
cleanly send their zone to plain pathspec (``ZoneMatcher.slow``); so do odd paths (a leading "/",
"//", a newline). A matcher keeps what it worked out (``warm``, ``match``) for its next call,
and matches a diff a batch at a time as git writes it (``matching``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, islice
from operator import lt, ne

import pathspec
from gradgate.bot.config.zone import Zone
from gradgate.bot.plan.safe_regex import compile_linear
from gradgate.bot.plan.zone_index import PatternIndex, index_zones
from gradgate.bot.plan.zone_run import MatchRun
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern


@dataclass(frozen=True)
class ZoneMatcher:
    """Compiled zone patterns. Build once per config, match many paths."""

    names: tuple[str, ...]
    patterns: tuple[tuple[str, ...], ...]  # each zone's
    slow: frozenset[int]  # zones with a regex shape not known here: asked of plain pathspec
    index: PatternIndex = field(repr=False, compare=False)
    # What earlier calls worked out (`warm`, `match`), each for one call at a time: a call takes
    # one (list.pop: thread-safe) and gives it back once it has succeeded.
    _runs: list[MatchRun] = field(default_factory=list, init=False, repr=False, compare=False)

    @classmethod
    def compile(cls, zones: Sequence[Zone]) -> ZoneMatcher:
        index, slow = index_zones(zones)
        names, patterns = tuple(z.name for z in zones), tuple(z.paths for z in zones)
        return cls(names, patterns, slow, index)

    @cached_property
    def specs(self) -> tuple[pathspec.GitIgnoreSpec, ...]:
        # The "simple" backend is the reference: pure Python, always there. The re2 backend
        # resolves some `!` orders differently (an include directory pattern after an exclude
        # file pattern), so "best" would make the answer depend on what is installed.
        # Each pattern's regex is pathspec's own, compiled to match in linear time (safe_regex).
        return tuple(
            pathspec.GitIgnoreSpec(
                [
                    GitIgnoreSpecPattern(compile_linear(rx), include)
                    for rx, include in map(GitIgnoreSpecPattern.pattern_to_regex, lines)
                    if rx is not None and include is not None
                ],
                backend="simple",
            )
            for lines in self.patterns
        )

    def warm(self, directories: Iterable[str]) -> None:
        """Work out what decides for the files of each of ``directories`` (those at head, where
        most paths of a diff are, while git works out the diff): the next match starts from it.
        Only time changes: every answer is worked out the same way, whenever it is asked."""
        run = self._runs.pop() if self._runs else self._run()
        for directory in directories:
            run.state(directory)
        self._runs.append(run)

    def _run(self) -> MatchRun:
        found: list[list[str]] = [[] for _ in self.names]
        fast = [z for z in range(len(self.names)) if z not in self.slow]

        def exact(path: str) -> None:  # an odd path: asked of pathspec itself
            for z in fast:
                if self.specs[z].match_file(path):
                    found[z].append(path)

        return MatchRun(self.index, found, exact)

    def match(self, paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Zone name -> the given paths inside it, in input order; zones with none omitted."""
        given = paths if isinstance(paths, list | tuple) else list(paths)
        matching = self.matching()
        matching.add(given)
        return matching.done(given)

    def matching(self) -> Matching:
        """A match fed a batch of paths at a time, as git writes the diff (`Matching`)."""
        return Matching(self, self._runs.pop() if self._runs else self._run())


class Matching:
    """One match of a diff's paths, fed in batches (``add``) while git still writes the rest;
    ``done`` gives what `ZoneMatcher.match` gives for all of them."""

    def __init__(self, matcher: ZoneMatcher, run: MatchRun) -> None:
        self.matcher, self.run = matcher, run
        self.batches: list[Sequence[str]] = []
        self.last = ""  # the last path matched: below every path git lists
        self.ordered = True

    def add(self, paths: Sequence[str]) -> None:
        """Match ``paths``, the diff's next ones, now where they follow the last in order."""
        self.batches.append(paths)
        # git lists paths in order, and strictly increasing paths hold no duplicate: checking
        # that in C takes a fifth of the time of hashing 100,000 new strings to drop them.
        if self.ordered and paths:
            if self.last < paths[0] and all(map(lt, paths, islice(paths, 1, None))):
                self.run.fill(paths)
                self.last = paths[-1]
            else:
                self.ordered = False

    def done(self, paths: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Zone name -> the ``paths`` inside it, in order; zones with none omitted. ``paths``:
        every batch added, in turn (else they are matched anew, as they are not all in order)."""
        run, matcher = self.run, self.matcher
        unique: Sequence[str] = paths
        fed = chain.from_iterable(self.batches)
        whole = self.ordered and sum(map(len, self.batches)) == len(paths)
        if not whole or any(map(ne, fed, paths)):
            for f in run.found:
                f.clear()
            unique = list(dict.fromkeys(paths))
            run.fill(unique)
        for z in matcher.slow:
            run.found[z] += [p for p in unique if matcher.specs[z].match_file(p)]
        out = {name: tuple(f) for name, f in zip(matcher.names, run.found, strict=True) if f}
        for f in run.found:
            f.clear()
        matcher._runs.append(run)
        return out
