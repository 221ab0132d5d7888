"""Pure zone matching: changed paths -> the zones they fall in, exactly as pathspec says.

Asked per zone and path, a 100,000-path diff and 500 patterns is 50M regex calls. The one idea
here is to ask each pattern about a path's two halves apart, once per distinct directory and
once per distinct name:

    index   cuts every pattern's pathspec regex into what the directory part of a path decides
            and what its name decides (``index_zones``); a pattern that does not cut cleanly
            sends its zone to plain pathspec (``ZoneMatcher.slow``)
    memo    one match's tables (``MatchRun``): each piece asked once per distinct directory or
            name, the hot loop a few dict lookups per path; odd paths (a leading "/", "//", a
            newline) are asked of pathspec itself
    gaps    the other question about the same patterns: which of them match no file at head
            (``unmatched``), each pattern asked on its own

``ZoneMatcher`` (here) compiles a config's zones once and matches a diff's paths with a fresh
``MatchRun``. tests/bot/plan/zones/ holds the differential test against plain pathspec.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pathspec
from gradgate.bot.config.zone import Zone
from gradgate.bot.plan.safe_regex import compile_linear
from gradgate.bot.plan.zones.index import PatternIndex, index_zones
from gradgate.bot.plan.zones.memo import MatchRun
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern


@dataclass(frozen=True)
class ZoneMatcher:
    """Compiled zone patterns. Build once per config, match many paths."""

    names: tuple[str, ...]
    patterns: tuple[tuple[str, ...], ...]  # each zone's
    slow: frozenset[int]  # zones with a regex shape not known here: asked of plain pathspec
    index: PatternIndex = field(repr=False, compare=False)

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

    def match(self, paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Zone name -> the given paths inside it, in input order (each once); zones with none
        omitted."""
        unique = list(dict.fromkeys(paths))
        found: list[list[str]] = [[] for _ in self.names]
        fast = [z for z in range(len(self.names)) if z not in self.slow]

        def exact(path: str) -> None:  # an odd path: asked of pathspec itself
            for z in fast:
                if self.specs[z].match_file(path):
                    found[z].append(path)

        MatchRun(self.index, found, exact).fill(unique)
        for z in self.slow:
            found[z] += [p for p in unique if self.specs[z].match_file(p)]
        return {name: tuple(f) for name, f in zip(self.names, found, strict=True) if f}
