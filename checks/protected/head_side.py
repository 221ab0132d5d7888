"""Where a blocking finding's statement is at head: the line GitHub can annotate (pure).

Blocking findings name the protected statement as it was (base lines, ``revision="base"``);
GitHub marks only head lines in "Files changed". Where the statement still exists at head
(edited, or stripped of its marker), the finding also carries its head file and the first head
line of the statement that differs from base, so a check run annotation or a review comment
lands on the edit itself.
"""

from __future__ import annotations

import dataclasses
import difflib

from gradgate.checks.base import Finding, Severity
from gradgate.checks.protected.markers import Unit, split_lines
from gradgate.checks.protected.match import Pairing

_MAX_LINES = 400  # lines of a statement difflib compares: its cost grows with the square


def at_head(finding: Finding, pairing: Pairing) -> Finding:
    head = pairing.head
    if head is None or finding.revision != "base" or finding.severity is not Severity.BLOCKING:
        return finding
    line = first_edit(pairing.base, head)
    return dataclasses.replace(finding, head_file=head.path, head_line=line)


def first_edit(base: Unit, head: Unit) -> int:
    """The first line of ``head``'s statement (marker included) that differs from ``base``'s
    (where lines only went missing, the line after them); its first line if none differs."""
    top = min(head.marker_line, head.start)
    old, new = split_lines(base.text)[:_MAX_LINES], split_lines(head.text)[:_MAX_LINES]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, _, _, j1, _ in matcher.get_opcodes():
        if tag != "equal":
            return min(top + j1, head.end)
    return head.start
