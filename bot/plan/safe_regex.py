"""Compile a zone pattern's regex so that matching it takes linear time, whatever the pattern.

A gitignore pattern becomes a regex with one unbounded repetition per wildcard (`[^/]*` for `*`,
`(?:/.+)?` for `**`). Python's backtracking `re` tries every split of the path among them:
`*a*a*a*a*a*a*a*a*a*b` against a 60-character name does not finish, and `a/**/a/**/a/**/b`
against a 600-character path takes seconds. RE2 matches in time linear in the path, but each call
costs ~15x more, so: a regex with at most one unbounded repetition (almost every real pattern:
`*.py`, `src/**`, literals) stays with `re`, which is linear for it; any other goes to RE2.
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


def compile_linear(source: str) -> Any:
    """A compiled regex with `re`'s API (search, match, fullmatch, groupdict) for ``source``.

    Typed Any: it is an `re.Pattern` or an RE2 one, which share that API but no type."""
    if unbounded_repetitions(source) <= 1:
        return re.compile(source)
    # Python's `$` also matches before a final newline, RE2's only at the end: keep `re`'s
    # meaning (paths with a newline reach here only as odd paths, but the answer must not move).
    return re2.compile(re.sub(r"(?<!\\)\$", r"(?:\\n?$)", source))
