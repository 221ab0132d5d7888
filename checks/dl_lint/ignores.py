"""Inline ignores (`# gradgate: ignore[RULE]`, or a bare `# gradgate: ignore`): which ones count.

A pull request cannot silence a finding by itself (issue 34). An ignore counts only when the
same comment stood at base on the same statement: its line is one the change left as it was,
and at base that line lay in a statement the same rule hit (for `eval-mode-lost`, which compares
revisions, the evaluation function's `def` line). Code the change only moved is matched to its
base hit before any ignore is read (``check``), so a move never needs one. An ignore the change
adds, or carries onto code it changed, leaves the finding standing, and the report says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gradgate.checks.diff import LineSpan

_IGNORE = re.compile(r"#\s*gradgate:\s*ignore(?:\[(?P<rules>[^\]]*)\])?")


@dataclass(frozen=True, slots=True)
class Ignore:
    """An ignore comment on a hit's statement that names the hit's rule."""

    comment: str  # as written, e.g. `# gradgate: ignore[hook-in-forward]`
    at_base: bool  # the same comment stood at base on the same statement: it counts


def _naming(text: str, rule: str) -> str | None:
    """The ignore comment on the line, when it names ``rule`` (or every rule)."""
    match = _IGNORE.search(text)
    if match is None:
        return None
    named = match["rules"]
    if named is None or rule in {r.strip() for r in named.split(",")}:
        return match[0]
    return None


def at_base(statements: Iterable[tuple[str, int, int]], lines: Sequence[str]) -> frozenset[str]:
    """The base's ignores that kept a rule off a statement: `rule` + the line that carries the
    comment, as written. ``statements``: (rule, first line, last line) of each base hit."""
    out = set()
    for rule, first, last in statements:
        for text in lines[first - 1 : last]:
            if _naming(text, rule) is not None:
                out.add(f"{rule}\n{text}")
    return frozenset(out)


def ignore_for(
    rule: str,
    first: int,
    last: int,
    lines: Sequence[str],
    changed: Sequence[LineSpan],
    base: frozenset[str],
) -> Ignore | None:
    """The ignore on the hit's statement (lines ``first``..``last`` at head) that names its
    rule, one that stood at base first; None: there is none. ``changed``: the lines the change
    added or edited; ``base``: what ``at_base`` found in the base's version of the file."""
    found = None
    for number in range(first, last + 1):
        text = lines[number - 1] if number <= len(lines) else ""
        comment = _naming(text, rule)
        if comment is None:
            continue
        kept = not any(number in span for span in changed) and f"{rule}\n{text}" in base
        if kept:
            return Ignore(comment, at_base=True)
        found = found or Ignore(comment, at_base=False)
    return found
