"""The comments that keep a hit out of the report, and which of them count (pure; issue 34).

Two kinds: an ignore (`# gradgate: ignore[RULE]`, or a bare `# gradgate: ignore`) on any line
of the statement, and, for the rules whose fix is to say why (`dist-timeout`,
`find-unused-parameters`), a comment on the statement or the line above it. A pull request
cannot silence a finding by itself, so such a comment counts only when it stood at base on the
same statement: its line is one the change left as it was, and at base that line lay in (or,
for an explanation, explained) a hit of the same rule (for `eval-mode-lost`, which compares
revisions, the evaluation function's `def` line). Code the change only moved is matched to its
base hit before any of this (``check``), so a move needs no comment. An ignore the change adds,
or carries onto code it changed, leaves the finding standing, and the report says so; an
explanation it writes still fixes a warning, but not a rule graded blocking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gradgate.checks.base import SuppressionOrigin
from gradgate.checks.diff import LineSpan
from gradgate.checks.dl_lint.scan import Hit

_IGNORE = re.compile(r"#\s*gradgate:\s*ignore(?:\[(?P<rules>[^\]]*)\])?")


@dataclass(frozen=True, slots=True)
class AtBase:
    """What the base's version of a file kept out: `rule` + the line that carries the comment,
    as written, for its ignores and for its comments that said why."""

    ignores: frozenset[str] = frozenset()
    explanations: frozenset[str] = frozenset()


def at_base(hits: Sequence[Hit], defs: Iterable[int], lines: Sequence[str]) -> AtBase:
    """``hits``: the base's; ``defs``: the `def` lines of its evaluation functions."""
    statements = [(h.rule, h.line, h.end) for h in hits]
    statements += [("eval-mode-lost", line, line) for line in defs]
    ignores = {
        f"{rule}\n{text}"
        for rule, first, last in statements
        for text in lines[first - 1 : last]
        if _naming(text, rule) is not None
    }
    explanations = {
        f"{h.rule}\n{lines[int(n) - 1]}"
        for h in hits
        for n in h.words.get("explained", "").split(",")
        if n and int(n) <= len(lines)
    }
    return AtBase(frozenset(ignores), frozenset(explanations))


@dataclass(frozen=True, slots=True)
class Weighed:
    """What the comments on a hit's statement decide."""

    stands: bool  # the finding is reported
    origin: SuppressionOrigin | None = None  # a suppression met ("change": it did not count)
    added: str | None = None  # in words, what the change added that did not count


def weigh(
    hit: Hit,
    *,
    blocking: bool,
    lines: Sequence[str],
    changed: Sequence[LineSpan],
    base: AtBase,
) -> Weighed:
    """``lines``: the file at head; ``changed``: the lines the change added or edited."""

    def kept(number: int, key: frozenset[str]) -> bool:
        text = lines[number - 1] if number <= len(lines) else ""
        return not any(number in span for span in changed) and f"{hit.rule}\n{text}" in key

    said = hit.words.get("explained")
    if said is not None:
        if not blocking:
            return Weighed(stands=False)  # saying why is the rule's fix
        if any(kept(int(n), base.explanations) for n in said.split(",")):
            return Weighed(stands=False, origin="base")
        return Weighed(stands=True, origin="change", added="comment on the statement")
    added = None
    for number in range(hit.line, hit.end + 1):
        comment = _naming(lines[number - 1] if number <= len(lines) else "", hit.rule)
        if comment is None:
            continue
        if kept(number, base.ignores):
            return Weighed(stands=False, origin="base")
        added = added or f"`{comment}`"
    return Weighed(stands=True, origin="change" if added else None, added=added)


def unignored(text: str) -> str:
    """``text`` without its ignore comment: what the line says by itself. `comment-language`
    judges a comment by most of its letters, and an English ignore must not tip them."""
    return _IGNORE.sub("", text)


def _naming(text: str, rule: str) -> str | None:
    """The ignore comment on the line, when it names ``rule`` (or every rule)."""
    match = _IGNORE.search(text)
    if match is None:
        return None
    named = match["rules"]
    if named is None or rule in {r.strip() for r in named.split(",")}:
        return match[0]
    return None
