"""`/recheck` (and, in App mode, `/ok-to-test`) in a pull request comment, and who may use it
(pure).

A command counts only as a paragraph line of its own at the top level of the comment: not in a
code block or span, a quote, a list, a heading or an HTML comment (markdown-it-py parses the
comment as GitHub renders it), so quoting someone's `/recheck` or documenting it runs nothing.
It counts in a newly created comment on a pull request, by a human (not a bot, not gradgate
itself) with write access; the PR's author counts only with write access too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise

from markdown_it import MarkdownIt


class Command(StrEnum):
    RECHECK = "recheck"  # re-run what failed or errored
    RECHECK_ALL = "recheck all"  # re-run everything
    OK_TO_TEST = "ok-to-test"  # let an untrusted PR's code run: `/ok-to-test [<sha>]`


# The Action has no `/ok-to-test` (its fork-safe workflows never run a fork's code with a token).
RECHECKS = frozenset({Command.RECHECK, Command.RECHECK_ALL})
APP_COMMANDS = frozenset(Command)
# When one comment says several: approving the code runs everything, so it wins; then `all`.
_PRECEDENCE = (Command.OK_TO_TEST, Command.RECHECK_ALL, Command.RECHECK)


class Ignored(StrEnum):
    """Why a comment starts nothing; the door logs it, the commenter hears nothing."""

    NOT_CREATED = "not-created"  # edited or deleted: only new comments count
    NOT_A_PULL_REQUEST = "not-a-pull-request"
    FROM_A_BOT = "from-a-bot"
    NO_COMMAND = "no-command"


# `/ok-to-test <sha>` approves exactly that commit: its full SHA (a prefix could be matched by
# a commit made to collide with it).
_LINE = re.compile(r"/(?:recheck(?:[ \t]+all)?|ok-to-test(?:[ \t]+(?P<sha>[0-9a-fA-F]{40}))?)")
# The label that approves like a bare `/ok-to-test` (the head it is put on), on both doors.
OK_TO_TEST_LABEL = "ok-to-test"
# Roles GitHub reports as the legacy `permission` of the collaborator endpoint that may write.
WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})


@dataclass(frozen=True, slots=True)
class CommentEvent:
    action: str  # created, edited, deleted
    number: int
    is_pull_request: bool
    comment_id: int
    body: str
    author: str
    author_type: str  # "User", "Bot", "Organization"


def parse_command(body: str, *, accept: frozenset[Command] = RECHECKS) -> Command | None:
    """The command in a comment, if any, among ``accept``; `/recheck all` wins over `/recheck`,
    and `/ok-to-test` over both."""
    found = {command for command, _ in _commands(body)}
    return next((c for c in _PRECEDENCE if c in found and c in accept), None)


def ok_to_test_sha(body: str) -> str | None:
    """The commit an `/ok-to-test <sha>` in the comment names (lowercase), or None: a bare
    `/ok-to-test`, or lines naming different commits (which one was meant is not clear)."""
    named = ok_to_test_shas(body)
    return named.pop() if len(named) == 1 else None


def ok_to_test_shas(body: str) -> set[str]:
    """Every commit the comment's `/ok-to-test <sha>` lines name (lowercase)."""
    return {sha for command, sha in _commands(body) if command is Command.OK_TO_TEST and sha}


def _commands(body: str) -> Iterator[tuple[Command, str | None]]:
    tokens = MarkdownIt("commonmark").parse(body)
    for previous, token in pairwise(tokens):
        # A top-level paragraph's text: level 1 inside a level-0 paragraph. Quotes, lists and
        # headings nest deeper or open differently; code and HTML are not inline tokens at all.
        if token.type != "inline" or previous.type != "paragraph_open" or previous.level != 0:
            continue
        for line in token.content.splitlines():
            match = _LINE.fullmatch(line.strip())
            if match:
                sha = match["sha"]
                word = match[0][1:].split()
                name = "ok-to-test" if word[0] == "ok-to-test" else " ".join(word)
                yield Command(name), sha.lower() if sha else None


def screen(
    event: CommentEvent, *, bot_login: str, accept: frozenset[Command] = RECHECKS
) -> Command | Ignored:
    """Before any API call: the command a comment carries, or why it starts nothing."""
    if event.action != "created":
        return Ignored.NOT_CREATED
    if not event.is_pull_request:
        return Ignored.NOT_A_PULL_REQUEST
    if event.author_type == "Bot" or event.author.endswith("[bot]") or event.author == bot_login:
        return Ignored.FROM_A_BOT
    return parse_command(event.body, accept=accept) or Ignored.NO_COMMAND


def may_recheck(permission: str) -> bool:
    """Write access or more, whoever the person is (the PR's author included)."""
    return permission in WRITE_PERMISSIONS
