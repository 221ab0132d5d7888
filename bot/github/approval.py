"""`/ok-to-test <sha>`: a person with write access approves one commit of a fork's pull request
for running its code (pure; the Action's door, issue 17).

The approval names the full commit SHA, and approves that commit only: what a reviewer read is a
commit, and a push that lands while they write must not ride on their words. A short SHA is not
enough (a few hex digits can be matched by a crafted commit). Like `/recheck`, it counts only
as a paragraph line of its own at the top level of the comment, by a human with write access.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from itertools import pairwise

from gradgate.bot.github.ports import Comment
from markdown_it import MarkdownIt

_OK_TO_TEST = re.compile(r"/ok-to-test[ \t]+(?P<sha>[0-9a-f]{40})")


def top_level_lines(body: str) -> Iterator[str]:
    """The lines of the comment's top-level paragraphs (not code, quotes, lists or headings)."""
    tokens = MarkdownIt("commonmark").parse(body)
    for previous, token in pairwise(tokens):
        if token.type == "inline" and previous.type == "paragraph_open" and previous.level == 0:
            yield from (line.strip() for line in token.content.splitlines())


def approved_shas(body: str) -> set[str]:
    """The commits a comment approves with `/ok-to-test <sha>`."""
    return {m["sha"] for line in top_level_lines(body) if (m := _OK_TO_TEST.fullmatch(line))}


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
