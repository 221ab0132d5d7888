"""`/ok-to-test <sha>`: a person with write access approves one commit of a fork's pull request
for running its code (pure; the Action's door, issue 17).

The approval names the full commit SHA, and approves that commit only: what a reviewer read is a
commit, and a push that lands while they write must not ride on their words. A short SHA is not
enough (a few hex digits can be matched by a crafted commit). Like `/recheck`, it counts only
as a paragraph line of its own at the top level of the comment, by a human with write access.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gradgate.bot.github.commands import ok_to_test_shas
from gradgate.bot.github.ports import Comment


def approved_shas(body: str) -> set[str]:
    """The commits a comment approves with `/ok-to-test <sha>` (the words both doors read)."""
    return ok_to_test_shas(body)


def approver(
    comments: Sequence[Comment], head_sha: str, *, may_write: Callable[[str], bool]
) -> str | None:
    """Who approved ``head_sha`` (the first such comment's author), or None. Bots, gradgate
    included, approve nothing."""
    for comment in comments:
        if comment.author_is_bot or comment.author.endswith("[bot]"):
            continue
        if head_sha in approved_shas(comment.body) and may_write(comment.author):
            return comment.author
    return None
