"""bot.github.reviewer against the fake GitHub, through the real PyGithub client."""

from __future__ import annotations

import dataclasses
import re

import pytest
from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy
from gradgate.bot.github.publish import Target, publish_report
from gradgate.bot.github.review import REVIEW_MARKER
from gradgate.bot.github.reviewer import submit_review
from gradgate.bot.report.lines import DiffLines
from gradgate.bot.report.render import Report
from gradgate.checks.base import Finding, Severity
from gradgate.checks.diff import LineSpan
from gradgate.checks.errors import GitHubError

from tests.bot.github.reports import BASE, HEAD, finding, report
from tests.fakegithub import BOT, FakeGitHub

REPO = "acme/model"
NEWER = "3333333" + "c" * 33
FAST = RetryPolicy(total=2, backoff_s=0.001, request_interval_s=0, write_interval_s=0)
# Lines 1 of models/m1.py and models/m2.py changed; models/m3.py did not change where its
# finding points.
LINES = DiffLines(
    head={f"models/m{i}.py": (LineSpan(1, 2),) for i in (1, 2)} | {"models/m3.py": ()},
)


@pytest.fixture
def client(github: FakeGitHub) -> GitHubClient:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    return GitHubClient(Connection(api_url=github.url, token=github.token(), repo=REPO, retry=FAST))


def reviewed(*findings: Finding, head: str = HEAD) -> Report:
    return dataclasses.replace(report(*findings, head=head), diff_lines=LINES)


def test_off_calls_nothing(github: FakeGitHub, client: GitHubClient) -> None:
    made = submit_review(client, reviewed(finding(1)), number=7, bot_login=BOT, mode="off")

    assert made is None and github.log == []


def test_one_review_with_inline_comments_on_changed_lines_and_the_rest_in_its_body(
    github: FakeGitHub, client: GitHubClient
) -> None:
    findings = (finding(1), finding(2, severity=Severity.WARNING), finding(3))

    made = submit_review(client, reviewed(*findings), number=7, bot_login=BOT, mode="comment")

    (review,) = github.reviews(REPO, 7)
    assert review.id == made and review.author == BOT and review.commit_id == HEAD
    assert review.state == "COMMENTED" and review.body.startswith(REVIEW_MARKER)
    comments = github.review_comments(REPO, review.id)
    assert [(c.path, c.line, c.side) for c in comments] == [
        ("models/m1.py", 1, "RIGHT"),
        ("models/m2.py", 2, "RIGHT"),
    ]
    assert "(finding 1)" in comments[0].body and "**warning**" in comments[1].body
    assert "(finding 3)" in review.body and "(finding 1)" not in review.body


def test_the_next_run_clears_the_previous_review_s_inline_comments(
    github: FakeGitHub, client: GitHubClient
) -> None:
    first = submit_review(client, reviewed(finding(1)), number=7, bot_login=BOT, mode="comment")
    github.repo(REPO).pulls[7].head_sha = NEWER
    second = submit_review(
        client, reviewed(finding(2), head=NEWER), number=7, bot_login=BOT, mode="comment"
    )

    old, new = github.reviews(REPO, 7)
    assert (old.id, new.id) == (first, second)
    assert github.review_comments(REPO, old.id) == []  # GitHub cannot dismiss a comment review
    assert not old.body.startswith(REVIEW_MARKER) and "Superseded" in old.body
    assert [c.line for c in github.review_comments(REPO, new.id)] == [2]
    assert new.body.startswith(REVIEW_MARKER)

    submit_review(client, reviewed(finding(2), head=NEWER), number=7, bot_login=BOT, mode="comment")
    assert github.requests("PUT", f"/reviews/{first}$") != []  # edited once ...
    assert len(github.requests("PUT", f"/reviews/{first}$")) == 1  # ... and left alone after


def test_request_changes_on_failure_then_dismissed_when_it_passes(
    github: FakeGitHub, client: GitHubClient
) -> None:
    first = submit_review(
        client, reviewed(finding(1)), number=7, bot_login=BOT, mode="request-changes"
    )
    (review,) = github.reviews(REPO, 7)
    assert review.state == "CHANGES_REQUESTED"

    github.repo(REPO).pulls[7].head_sha = NEWER
    passing = reviewed(head=NEWER)
    made = submit_review(client, passing, number=7, bot_login=BOT, mode="request-changes")

    assert made is None  # nothing to say: no new review
    (review,) = github.reviews(REPO, 7)
    assert (review.id, review.state) == (first, "DISMISSED")
    assert github.review_comments(REPO, review.id) == []
    (dismissal,) = github.requests("PUT", "/dismissals$")
    assert dismissal.status == 200


def test_a_review_is_not_forged_from_another_login_s_marker(
    github: FakeGitHub, client: GitHubClient
) -> None:
    mallory = GitHubClient(
        Connection(api_url=github.url, token=github.token("mallory"), repo=REPO, retry=FAST)
    )
    submit_review(mallory, reviewed(finding(1)), number=7, bot_login="mallory", mode="comment")

    submit_review(client, reviewed(finding(1)), number=7, bot_login=BOT, mode="comment")

    theirs, ours = github.reviews(REPO, 7)
    assert theirs.author == "mallory" and theirs.body.startswith(REVIEW_MARKER)
    assert len(github.review_comments(REPO, theirs.id)) == 1
    assert ours.author == BOT


def test_when_github_refuses_the_inline_comments_every_finding_goes_in_the_body(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.repo(REPO).pulls[7].diff = {"models/m1.py": {"RIGHT": {5}, "LEFT": set()}}

    submit_review(client, reviewed(finding(1)), number=7, bot_login=BOT, mode="comment")

    assert [r.status for r in github.requests("POST", "/reviews$")] == [422, 200]
    (review,) = github.reviews(REPO, 7)
    assert github.review_comments(REPO, review.id) == []
    assert "(finding 1)" in review.body


def test_a_review_posted_twice_by_a_retry_leaves_one(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.faults.only = re.compile(r"^POST .*/reviews$")
    github.faults.fail_next(1, status=502, after=True)  # made, then the answer was lost

    made = submit_review(client, reviewed(finding(1)), number=7, bot_login=BOT, mode="comment")

    lost, kept = github.reviews(REPO, 7)
    assert kept.id == made
    assert github.review_comments(REPO, lost.id) == [] and "Superseded" in lost.body
    assert len(github.review_comments(REPO, kept.id)) == 1


def test_a_dismissal_whose_answer_was_lost_is_not_an_error(
    github: FakeGitHub, client: GitHubClient
) -> None:
    submit_review(client, reviewed(finding(1)), number=7, bot_login=BOT, mode="request-changes")
    github.faults.only = re.compile(r"^PUT .*/dismissals$")
    github.faults.fail_next(1, status=502, after=True)

    submit_review(client, reviewed(), number=7, bot_login=BOT, mode="request-changes")

    (review,) = github.reviews(REPO, 7)
    assert review.state == "DISMISSED"


def test_a_refused_review_is_an_error_never_silence(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.repo(REPO).pulls[7].author = BOT  # GitHub: no changes requested on one's own PR

    with pytest.raises(GitHubError, match="HTTP 422"):
        submit_review(client, reviewed(finding(1)), number=7, bot_login=BOT, mode="request-changes")


def test_publishing_reviews_after_the_comment_and_never_for_a_moved_head(
    github: FakeGitHub, client: GitHubClient
) -> None:
    target = Target(number=7, bot_login=BOT)
    publish_report(client, reviewed(finding(1)), target, review="comment")
    assert len(github.reviews(REPO, 7)) == 1
    assert github.log[-1].path.endswith("/reviews")  # listed last, after the new one

    github.repo(REPO).pulls[7].head_sha = NEWER  # pushed while the checks ran
    publish_report(client, reviewed(finding(2)), target, review="comment")
    assert len(github.reviews(REPO, 7)) == 1
