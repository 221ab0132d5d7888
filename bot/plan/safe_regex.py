"""Compile a zone pattern's regex so that matching it takes linear time, whatever the pattern.

A gitignore pattern becomes a regex with one unbounded repetition per wildcard (`[^/]*` for `*`,
`(?:/.+)?` for `**`). Python's backtracking `re` tries every split of the path among them:
`*a*a*a*a*a*a*a*a*a*b` against a 60-character name does not finish, and `a/**/a/**/a/**/b`
against a 600-character path takes seconds. RE2 matches in time linear in the path, but each call
costs ~15x more, so: a regex with at most one unbounded repetition (almost every real pattern:
`*.py`, `src/**`, literals) stays with `re`, which is linear for it; one with k > 1 uses `re`
only on inputs short enough that backtracking is bounded (length**k <= _STEPS), RE2 otherwise.
"""

from __future__ import annotations

import re
from typing import Any

import re2

# An unbounded repetition: `*` or `+` (optionally lazy) that is not escaped. Inside a character
# class a `*` is a literal, which only makes this count high, never low: RE2 is always safe.
_UNBOUNDED = re.compile(r"(?<!\\)[*+]")


def unbounded_repetitions(source: str) -> int:
    return len(_UNBOUNDED.findall(source))


_STEPS = 1_000_000  # backtracking steps `re` may take on one input, at worst


class _Bounded:
    """`re` on short inputs, RE2 on the rest: the same answers, bounded time on any input."""

    def __init__(self, source: str, repetitions: int) -> None:
        self.pattern = source
        self._re = re.compile(source)
        # Python's `$` also matches before a final newline, RE2's only at the end: keep `re`'s
        # meaning (a path with a newline reaches here only as an odd path, but must not move).
        self._re2 = re2.compile(re.sub(r"(?<!\\)\$", r"(?:\\n?$)", source))
        self._short = int(_STEPS ** (1 / repetitions))  # longest input `re` is trusted with

    def _engine(self, text: str) -> Any:
        return self._re if len(text) <= self._short else self._re2

    def search(self, text: str) -> Any:
        return self._engine(text).search(text)

    def match(self, text: str) -> Any:
        return self._engine(text).match(text)

    def fullmatch(self, text: str) -> Any:
        return self._engine(text).fullmatch(text)


def compile_linear(source: str) -> Any:
    """A compiled regex with `re`'s API (search, match, fullmatch, groupdict) for ``source``.

    Typed Any: it is an `re.Pattern` or a `_Bounded`, which share that API but no type."""
    repetitions = unbounded_repetitions(source)
    return re.compile(source) if repetitions <= 1 else _Bounded(source, repetitions)
