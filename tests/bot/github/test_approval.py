"""bot.github.approval: `/ok-to-test <sha>` approves exactly that commit (issue 17)."""

from __future__ import annotations

import pytest
from gradgate.bot.github.approval import approved_shas, approver
from gradgate.bot.github.ports import Comment

HEAD = "0123456789abcdef" * 2 + "01234567"


@pytest.mark.parametrize(
    ("body", "approved"),
    [
        (f"/ok-to-test {HEAD}", {HEAD}),
        (f"looks fine\n\n/ok-to-test {HEAD}\n", {HEAD}),
        ("/ok-to-test", set()),  # which commit?
        (f"/ok-to-test {HEAD[:12]}", set()),  # a short SHA can be matched by a crafted commit
        (f"/ok-to-test {HEAD.upper()}", {HEAD}),  # the same commit, as the App reads it
        (f"> /ok-to-test {HEAD}", set()),  # quoted
        (f"`/ok-to-test {HEAD}`", set()),  # code
        (f"```\n/ok-to-test {HEAD}\n```", set()),
        (f"- /ok-to-test {HEAD}", set()),  # a list item
        (f"please /ok-to-test {HEAD}", set()),  # not a line of its own
    ],
)
def test_what_a_comment_approves(body: str, approved: set[str]) -> None:
    assert approved_shas(body) == approved


def test_the_approver_has_write_access_and_is_no_bot() -> None:
    comments = [
        Comment(1, f"/ok-to-test {HEAD}", "mallory", False),
        Comment(2, f"/ok-to-test {HEAD}", "github-actions[bot]", True),
        Comment(3, f"/ok-to-test {HEAD}", "olivia", False),
    ]
    writers = {"olivia", "github-actions[bot]"}

    assert approver(comments, HEAD, may_write=writers.__contains__) == "olivia"
    assert approver(comments[:2], HEAD, may_write=writers.__contains__) is None
    assert approver(comments, "f" * 40, may_write=writers.__contains__) is None
