"""Which disagreements block: those the PR introduced (pure).

A disagreement found at head whose signature was not found at base is new: a value changed on
one side only, a key renamed, an import or file removed, a config that no longer parses. It
blocks. One that was already there is a note, so adopting gradgate on an old repository does
not start with a wall of red. Undocumented new keys, notes about docs that could not be read
in full, and files skipped for their size or for being binary, never block.
"""

from __future__ import annotations

from collections.abc import Iterable

from gradgate.checks.base import Severity
from gradgate.checks.config_docs.compare import Disagreement

_NEVER_BLOCK = frozenset({"undocumented", "skipped", "unclosed-fence", "block-unparsed"})


def severity(d: Disagreement, *, at_base: frozenset[tuple[str, ...]]) -> Severity:
    if d.kind in _NEVER_BLOCK or d.signature in at_base:
        return Severity.NOTE
    if d.problem is not None and not d.problem.config:
        return Severity.NOTE  # a doc that cannot be read claims nothing wrong
    return Severity.BLOCKING


def signatures(found: Iterable[Disagreement]) -> frozenset[tuple[str, ...]]:
    return frozenset(d.signature for d in found)
