"""What an `/ok-to-test` approves (pure): the head that was the PR's when the comment was written.

A delivery can arrive after a newer push's, and a signed delivery can be sent again under a new
delivery id (the signature does not cover that header). So an approval binds to GitHub's own
times (issue 17): the comment's `created_at` against the push times the server recorded from
each push's delivery (`pull_request.updated_at`), never to what the server knew on arrival.

    `/ok-to-test <sha>`   approves exactly that commit, whenever it was pushed
    `/ok-to-test`         approves the head pushed last before the comment was written, and only
                          when that was at least ``confirm_s`` before it (`trust.confirm_s`):
                          nobody can be shown to have reviewed a head pushed moments before they
                          wrote, so gradgate asks for `/ok-to-test <sha>` instead
    the `ok-to-test` label  approves the head the label was put on (the delivery's own head)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class Refused(StrEnum):
    """Why an /ok-to-test approves nothing; the reply (recheck_reply.md.j2) says it."""

    MOVED = "ok-to-test-moved"  # the head changed after the comment was written
    CONFIRM = "ok-to-test-confirm"  # too soon after a push, or no push time known: name the SHA


@dataclass(frozen=True, slots=True)
class Approved:
    sha: str


def head_at(pushes: Sequence[tuple[str, float]], when: float) -> tuple[str, float] | None:
    """The head (and its push time) that was the PR's at ``when``: the last push at or before
    it. A push at the very second of the comment counts as before it (the safer reading)."""
    before = [push for push in pushes if push[1] <= when]
    return max(before, key=lambda push: push[1]) if before else None


def approve(
    *,
    named: str | None,
    written_at: float | None,
    pushes: Sequence[tuple[str, float]],
    current: str,
    confirm_s: float,
) -> Approved | Refused:
    if named is not None:
        return Approved(named)
    if written_at is None:
        return Refused.CONFIRM
    seen = head_at(pushes, written_at)
    if seen is None:
        return Refused.CONFIRM  # no push recorded before it: which head was seen is unknown
    sha, pushed_at = seen
    if sha != current:
        return Refused.MOVED
    if written_at - pushed_at < confirm_s:
        return Refused.CONFIRM
    return Approved(sha)
