"""bot.github.commands: where `/recheck` counts, and who may use it (tables)."""

from __future__ import annotations

import pytest
from gradgate.bot.github.commands import (
    APP_COMMANDS,
    Command,
    CommentEvent,
    Ignored,
    may_recheck,
    ok_to_test_sha,
    parse_command,
    screen,
)

R, ALL = Command.RECHECK, Command.RECHECK_ALL


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/recheck", R),
        ("/recheck all", ALL),
        ("  /recheck  ", R),
        ("/recheck\tall", ALL),
        ("Flaky runner, sorry.\n/recheck", R),
        ("/recheck\nthanks!", R),
        ("Thanks!\n\n/recheck all\n\n/recheck", ALL),
        ("/recheck\r\n", R),
        # not on its own line
        ("please /recheck", None),
        ("/recheck please", None),
        ("/rechecking", None),
        ("/recheck everything", None),
        ("`/recheck`", None),
        # in a code block
        ("```\n/recheck\n```", None),
        ("~~~text\n/recheck all\n~~~", None),
        ("    /recheck", None),
        # in a quote, a list, a heading, an HTML comment
        ("> /recheck", None),
        ("> quoting you:\n> /recheck", None),
        ("- /recheck", None),
        ("1. /recheck", None),
        ("# /recheck", None),
        ("<!-- /recheck -->", None),
        ("", None),
        ("\\/recheck", None),
    ],
)
def test_recheck_counts_only_on_its_own_line_outside_code_quotes_and_lists(
    body: str, expected: Command | None
) -> None:
    assert parse_command(body) == expected


def _event(**overrides: object) -> CommentEvent:
    values: dict[str, object] = {
        "action": "created",
        "number": 7,
        "is_pull_request": True,
        "comment_id": 1,
        "body": "/recheck",
        "author": "alice",
        "author_type": "User",
    }
    values.update(overrides)
    return CommentEvent(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, R),
        ({"body": "/recheck all"}, ALL),
        ({"action": "edited"}, Ignored.NOT_CREATED),
        ({"action": "deleted"}, Ignored.NOT_CREATED),
        ({"is_pull_request": False}, Ignored.NOT_A_PULL_REQUEST),
        ({"author_type": "Bot", "author": "renovate[bot]"}, Ignored.FROM_A_BOT),
        ({"author": "dependabot[bot]"}, Ignored.FROM_A_BOT),
        ({"author": "gradgate-bot"}, Ignored.FROM_A_BOT),  # gradgate itself, as configured
        ({"body": "> /recheck"}, Ignored.NO_COMMAND),
    ],
)
def test_only_new_pr_comments_by_humans_are_screened_in(
    overrides: dict[str, object], expected: Command | Ignored
) -> None:
    assert screen(_event(**overrides), bot_login="gradgate-bot") == expected


@pytest.mark.parametrize(
    ("permission", "allowed"),
    [
        ("admin", True),
        ("maintain", True),
        ("write", True),
        ("triage", False),
        ("read", False),
        ("none", False),
    ],
)
def test_write_access_is_what_it_takes(permission: str, allowed: bool) -> None:
    assert may_recheck(permission) is allowed


OK = Command.OK_TO_TEST


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/ok-to-test", OK),
        ("Looked at it, fine.\n/ok-to-test", OK),
        ("/ok-to-test\n/recheck all", OK),  # approving runs everything anyway
        ("/recheck", R),
        ("> /ok-to-test", None),
        ("```\n/ok-to-test\n```", None),
        ("/ok-to-test please", None),
        ("/ok-to-testing", None),
    ],
)
def test_ok_to_test_counts_like_recheck_in_app_mode(body: str, expected: Command | None) -> None:
    assert parse_command(body, accept=APP_COMMANDS) == expected


def test_the_action_ignores_ok_to_test() -> None:
    assert parse_command("/ok-to-test") is None
    assert parse_command("/ok-to-test\n/recheck") == R
    assert screen(_event(body="/ok-to-test"), bot_login="gradgate-bot") == Ignored.NO_COMMAND


SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    ("body", "command", "sha"),
    [
        (f"/ok-to-test {SHA}", Command.OK_TO_TEST, SHA),
        (f"Reviewed.\n/ok-to-test {SHA.upper()}\n", Command.OK_TO_TEST, SHA),
        ("/ok-to-test", Command.OK_TO_TEST, None),
        (f"/ok-to-test {SHA[:7]}", None, None),  # a prefix could be matched by a made collision
        (f"/ok-to-test {SHA}\n\n/ok-to-test {'f' * 40}", Command.OK_TO_TEST, None),  # which one?
        (f"> /ok-to-test {SHA}", None, None),  # quoted
        (f"`/ok-to-test {SHA}`", None, None),
    ],
)
def test_ok_to_test_may_name_exactly_one_full_commit(
    body: str, command: Command | None, sha: str | None
) -> None:
    assert parse_command(body, accept=APP_COMMANDS) == command
    assert ok_to_test_sha(body) == sha
