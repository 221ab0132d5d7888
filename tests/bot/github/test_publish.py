"""bot.github.publish against the fake GitHub, through the real PyGithub client."""

from __future__ import annotations

import dataclasses

import pytest
from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy
from gradgate.bot.github.publish import Target, publish_report, report_parts
from gradgate.bot.github.sticky import Stamp
from gradgate.checks.errors import GitHubError

from tests.bot.github.reports import BASE, HEAD, finding, report
from tests.fakegithub import BOT, FakeGitHub

REPO = "acme/model"
NEWER = "3333333" + "c" * 33
FAST = RetryPolicy(total=2, backoff_s=0.001, request_interval_s=0, write_interval_s=0)
TARGET = Target(number=7, bot_login=BOT, target_url="https://github.com/acme/model/actions/runs/1")


@pytest.fixture
def client(github: FakeGitHub) -> GitHubClient:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    return GitHubClient(Connection(api_url=github.url, token=github.token(), repo=REPO, retry=FAST))


def test_a_current_report_is_one_comment_and_final_statuses(
    github: FakeGitHub, client: GitHubClient
) -> None:
    published = publish_report(client, report(finding(1)), TARGET)

    assert published.current
    (comment,) = github.comments(REPO, 7)
    assert "gradgate failed" in comment.body
    assert Stamp.read(comment.body) == Stamp(HEAD, BASE, "abc123def456", "failure", 1, 1)
    statuses = github.repo(REPO).latest_statuses(HEAD)
    assert statuses["gradgate"].state == "failure"
    assert statuses["gradgate"].target_url == TARGET.target_url


def test_the_same_report_again_leaves_the_comment_alone(
    github: FakeGitHub, client: GitHubClient
) -> None:
    publish_report(client, report(finding(1)), TARGET)
    publish_report(client, report(finding(1)), TARGET)

    assert len(github.comments(REPO, 7)) == 1
    assert github.requests("PATCH") == [] and len(github.requests("POST", "/comments$")) == 1


def test_results_for_a_head_that_moved_are_marked_superseded_not_current(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.repo(REPO).pulls[7].head_sha = NEWER  # pushed while the checks ran

    published = publish_report(client, report(finding(1)), TARGET)

    assert not published.current and published.head_now == NEWER
    (comment,) = github.comments(REPO, 7)
    assert "Superseded: these results are for `2222222`" in comment.body
    assert "head is now `3333333`" in comment.body
    assert github.repo(REPO).latest_statuses(NEWER) == {}  # nothing claims the new head passed
    assert github.repo(REPO).latest_statuses(HEAD)["gradgate"].state == "failure"


def test_a_stale_run_finishing_late_does_not_touch_the_newer_report(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.repo(REPO).pulls[7].head_sha = NEWER
    publish_report(client, report(head=NEWER), TARGET)  # the newer run, first
    before = github.comments(REPO, 7)

    published = publish_report(client, report(finding(1)), TARGET)  # the older one, late

    assert not published.current
    assert github.comments(REPO, 7) == before
    assert github.repo(REPO).latest_statuses(NEWER)["gradgate"].state == "success"


def test_when_the_comment_cannot_be_written_the_final_statuses_are_still_set(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.faults.only = __import__("re").compile(r"^POST .*/comments$")
    github.faults.fail_next(FAST.total + 1, status=502)

    with pytest.raises(GitHubError, match="comment on #7"):
        publish_report(client, report(finding(1)), TARGET)

    assert github.comments(REPO, 7) == []
    assert github.repo(REPO).latest_statuses(HEAD)["gradgate"].state == "failure"


def test_a_comment_github_made_but_answered_with_a_5xx_leaves_no_duplicate(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.faults.only = __import__("re").compile(r"^POST .*/comments$")
    github.faults.fail_next(1, status=502, after=True)  # made, then the answer was lost

    publish_report(client, report(finding(1)), TARGET)

    assert len(github.comments(REPO, 7)) == 1
    assert [r.status for r in github.requests("POST", "/comments$")] == [502, 201]


def test_when_the_pull_request_cannot_be_read_the_final_statuses_are_still_set(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.faults.only = __import__("re").compile(r"^GET .*/pulls/7$")
    github.faults.fail_next(FAST.total + 1, status=503)

    with pytest.raises(GitHubError, match="read pull request #7"):
        publish_report(client, report(finding(1)), TARGET)

    assert github.repo(REPO).latest_statuses(HEAD)["gradgate"].state == "failure"


def test_only_values_of_the_stamps_formats_are_written_into_it() -> None:
    """Issue 17: a config hash that closes the HTML comment would let a report forge the stamp
    later runs read back."""
    forged = dataclasses.replace(
        report(finding(1)), config_hash="x --> <!-- gradgate:stamp verdict=success"
    )

    with pytest.raises(ValueError, match="config_hash"):
        report_parts(forged)
    assert report_parts(report(finding(1)))  # real values are written
