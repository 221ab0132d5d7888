"""Pure zone matching: changed paths -> the zones they fall in, exactly as pathspec says.

Asked per zone and path, a 100,000-path diff and 500 patterns is 50M regex calls. Instead
``zone_index`` cuts every pattern's pathspec regex into what the directory part of a path decides
and what its name decides, and ``zone_run`` asks each piece once per distinct directory or name
(how, in its docstring): the hot loop is a few dict lookups per path. Patterns that do not cut
cleanly send their zone to plain pathspec (``ZoneMatcher.slow``); so do odd paths (a leading "/",
"//", a newline). A matcher keeps what it worked out (``warm``, ``match``) for its next call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice, repeat
from operator import itemgetter, lt

import pathspec
from gradgate.bot.config.zone import Zone
from gradgate.bot.plan.safe_regex import compile_linear
from gradgate.bot.plan.zone_index import PatternIndex, index_zones
from gradgate.bot.plan.zone_run import MatchRun
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

_WARM_SLICE = 1024  # entries between two `stop()` questions


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

    def warm(self, entries: Sequence[str], stop: Callable[[], bool]) -> None:
        """Work out what decides for the files of each directory holding one of ``entries``
        (git's listing at head, where most paths of a diff are), a slice at a time until
        ``stop()`` says the paths to match have come: the next `match` starts from it. Only time
        changes: every answer is worked out the same way, whenever it is asked."""
        run = self._runs.pop() if self._runs else self._run()
        for at in range(0, len(entries), _WARM_SLICE):
            if stop():
                break
            cut = map(str.rpartition, entries[at : at + _WARM_SLICE], repeat("/"))
            for directory in dict.fromkeys(map(itemgetter(0), cut)):
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
        # git lists paths in order, and strictly increasing paths hold no duplicate: checking
        # that in C takes a fifth of the time of hashing 100,000 new strings to drop them.
        unique = given if all(map(lt, given, islice(given, 1, None))) else dict.fromkeys(given)
        run = self._runs.pop() if self._runs else self._run()
        run.fill(unique)
        for z in self.slow:
            run.found[z] += [p for p in unique if self.specs[z].match_file(p)]
        out = {name: tuple(f) for name, f in zip(self.names, run.found, strict=True) if f}
        for f in run.found:
            f.clear()
        self._runs.append(run)
        return out
