"""Warnings about what the user marked that protects nothing (pure): nothing marked is silently
unprotected (issue 18).

A marker word elsewhere in a comment (`# see NO_REFAC policy`) is no marker: the warning names
the line and says how to write it so it protects. A marker that annotates no statement (a file
of comments only) protects nothing: the warning says where to put it. Both concern the head
revision of a file the change touches, and neither blocks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.protected.findings import code_span
from gradgate.checks.protected.markers import MarkerComment, Mention, comment_opener

LOOKALIKE = "protected-marker-lookalike"
UNUSED = "protected-marker-unused"
_LISTED = 3  # look-alike lines of one file given a warning each; past it, one lists them all
_NUMBERS = 10  # line numbers a grouped warning spells out


def advice(
    path: str, unused: Sequence[MarkerComment], mentions: Sequence[Mention]
) -> list[Finding]:
    opener = comment_opener(path) or "#"
    out = [_unused(path, marker, opener) for marker in unused]
    if len(mentions) <= _LISTED:
        out += [_lookalike(path, [m], opener) for m in mentions]
    elif mentions:
        out.append(_lookalike(path, mentions, opener))
    return out


def summary_part(findings: Iterable[Finding]) -> str:
    """`1 marker protects nothing; 2 look like markers but are not`, for a passing summary."""
    counts = Counter(f.kind for f in findings)
    parts = []
    if n := counts[UNUSED]:
        parts.append(f"{n} marker{'s protect' if n > 1 else ' protects'} nothing")
    if n := counts[LOOKALIKE]:
        parts.append(f"{n} comment{'s look' if n > 1 else ' looks'} like a marker")
    return "; ".join(parts)


def _lookalike(path: str, mentions: Sequence[Mention], opener: str) -> Finding:
    first, word = mentions[0], mentions[0].marker
    marker = code_span(f"{opener} {word}")
    if len(mentions) == 1:
        where = f"{code_span(f'{path}:{first.line}')} has {code_span(word)} in a comment: it looks"
        what = "like a marker but is not one, so it protects nothing"
    else:
        others = [str(m.line) for m in mentions[1:]]
        shown = ", ".join(others[:_NUMBERS]) + (", …" if len(others) > _NUMBERS else "")
        where = (
            f"{code_span(f'{path}:{first.line}')} and {len(others)} other lines ({shown}) have "
            f"{code_span(word)} in a comment: they look"
        )
        what = "like markers but are not, so they protect nothing"
    example = code_span(f"code  {opener} why  {opener} {word}")
    return Finding(
        kind=LOOKALIKE,
        severity=Severity.WARNING,
        message=f"{where} {what}. A marker counts only as the first word of a comment or of a "
        f"{code_span(opener)} segment in it. To protect the statement, write {marker} as the "
        f"first word of the comment ({code_span(f'{opener} {word}: why')}), or end the line with "
        f"it ({example}); to only name the marker, put it in backticks.",
        file=path,
        line=first.line,
        revision="head",
    )


def _unused(path: str, marker: MarkerComment, opener: str) -> Finding:
    return Finding(
        kind=UNUSED,
        severity=Severity.WARNING,
        message=f"{code_span(f'{opener} {marker.marker}')} at "
        f"{code_span(f'{path}:{marker.line}')} protects nothing: there is no statement after "
        "it in its block, nor above it. Put it at the end of the line it should protect, or on "
        "its own line just above that line.",
        file=path,
        line=marker.line,
        revision="head",
    )
