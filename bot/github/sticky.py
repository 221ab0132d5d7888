"""The one sticky report comment: find it, stamp it, and decide how to bring it up to date (pure).

Ours is a comment by gradgate's own login whose body starts with the report marker: another tool
or a person can copy the marker, not the login. A long report is several comments ("parts").
Each part carries a hidden stamp: the head, base and config it was computed for, the verdict and
its part number, so the next run knows what it replaces.

Bringing it up to date, in order: edit a part whose body changed, leave an unchanged one alone,
add missing parts, delete extra ones (and any duplicate a retried POST may have left). When the
verdict turns from success to failure or error, the parts are created anew and the old ones
deleted, so GitHub notifies people; new before old, so a failure halfway loses no report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from gradgate.bot.github.ports import Comment
from gradgate.bot.report.render import COMMENT_MARKER

_STAMP = re.compile(
    r"<!-- gradgate:stamp head=(?P<head>\S+) base=(?P<base>\S+) config=(?P<config>\S+) "
    r"verdict=(?P<verdict>\S+) part=(?P<part>\d+)/(?P<parts>\d+) -->"
)
# A verdict people must hear about when it replaces a success.
_BAD = frozenset({"failure", "error"})
# The time column of the checks table (the `duration` filter's words). Two runs of the same head
# never take exactly as long: a part that differs only there is left alone, not edited.
_TIME_CELL = re.compile(r" \| (?:<0\.1 s|\d+\.\d s|\d+ min \d+ s) \|$", re.MULTILINE)


def _same(old: str, new: str) -> bool:
    return old == new or _TIME_CELL.sub(" | |", old) == _TIME_CELL.sub(" | |", new)


@dataclass(frozen=True, slots=True)
class Stamp:
    head: str
    base: str
    config: str  # the config hash, or "none"
    verdict: str  # success, failure, error
    part: int = 1
    parts: int = 1

    def line(self) -> str:
        return (
            f"<!-- gradgate:stamp head={self.head} base={self.base} config={self.config} "
            f"verdict={self.verdict} part={self.part}/{self.parts} -->"
        )

    @classmethod
    def read(cls, body: str) -> Stamp | None:
        match = _STAMP.search(body)
        if match is None:
            return None
        return cls(
            head=match["head"],
            base=match["base"],
            config=match["config"],
            verdict=match["verdict"],
            part=int(match["part"]),
            parts=int(match["parts"]),
        )


class Kind(StrEnum):
    CREATE = "create"
    EDIT = "edit"
    DELETE = "delete"


@dataclass(frozen=True, slots=True)
class Step:
    kind: Kind
    comment_id: int | None = None  # EDIT, DELETE
    body: str | None = None  # CREATE, EDIT


def ours(comments: Sequence[Comment], *, bot_login: str) -> list[Comment]:
    """gradgate's report comments: our login *and* our marker, oldest first."""
    return sorted(
        (
            c
            for c in comments
            if c.author == bot_login and c.body.lstrip().startswith(COMMENT_MARKER)
        ),
        key=lambda c: c.id,
    )


def _part(comment: Comment) -> int:
    stamp = Stamp.read(comment.body)
    return stamp.part if stamp else 1  # a report from before stamps: a whole report


def shown(existing: Sequence[Comment]) -> Stamp | None:
    """The stamp of the report people see now: the oldest part 1."""
    for comment in existing:
        if _part(comment) == 1:
            return Stamp.read(comment.body)
    return None


def steps(existing: Sequence[Comment], parts: Sequence[str], *, verdict: str) -> list[Step]:
    """What to do so that exactly ``parts`` are shown, in order. ``existing``: ``ours(...)``."""
    previous = shown(existing)
    if previous is not None and previous.verdict == "success" and verdict in _BAD:
        return [Step(Kind.CREATE, body=b) for b in parts] + [
            Step(Kind.DELETE, comment_id=c.id) for c in existing
        ]
    keep: dict[int, Comment] = {}
    for old in existing:
        keep.setdefault(_part(old), old)
    out: list[Step] = []
    kept: set[int] = set()
    last, creating = 0, False
    for number, body in enumerate(parts, start=1):
        # Comments show in id order: a part is reused only after the part before it, and once
        # one part is new, every later part must be new too.
        comment = None if creating else keep.get(number)
        if comment is None or comment.id < last:
            creating = True
            out.append(Step(Kind.CREATE, body=body))
            continue
        last = comment.id
        kept.add(comment.id)
        if not _same(comment.body, body):
            out.append(Step(Kind.EDIT, comment_id=comment.id, body=body))
    out += [Step(Kind.DELETE, comment_id=c.id) for c in existing if c.id not in kept]
    return out
