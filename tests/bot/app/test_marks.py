"""bot.app.marks: what a job marked in progress, concluded on its old head after a push, and
only there; through the real client against the fake GitHub."""

from __future__ import annotations

import pytest
from gradgate.bot.app.marks import Marks, conclude_superseded
from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy
from gradgate.bot.github.outcome import Pending, post_pending
from gradgate.bot.github.publish import Target

from tests.bot.github.reports import BASE, HEAD, plan
from tests.fakegithub import BOT, FakeGitHub

REPO = "acme/model"
NEWER = "3333333" + "c" * 33
FAST = RetryPolicy(total=2, backoff_s=0.001, request_interval_s=0, write_interval_s=0)
TARGET = Target(number=7, bot_login=BOT)


@pytest.fixture
def client(github: FakeGitHub) -> GitHubClient:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    token = github.token(checks=True)
    return GitHubClient(Connection(api_url=github.url, token=token, repo=REPO, retry=FAST))


def _mark(client: GitHubClient, marks: Marks) -> None:
    marks.mark(
        HEAD,
        lambda: post_pending(
            client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=None
        ),
    )


def test_marks_on_a_head_a_push_replaced_are_cancelled_there(
    github: FakeGitHub, client: GitHubClient
) -> None:
    marks = Marks()
    _mark(client, marks)
    github.repo(REPO).pulls[7].head_sha = NEWER

    conclude_superseded(client, marks.close(), target=TARGET)

    runs = github.repo(REPO).latest_check_runs(HEAD)
    assert {runs[n].conclusion for n in ("gradgate", "gradgate/protected")} == {"cancelled"}
    assert github.repo(REPO).latest_check_runs(NEWER) == {}


def test_marks_on_the_head_as_it_is_now_are_left_to_the_worker_that_took_the_job_over(
    github: FakeGitHub, client: GitHubClient
) -> None:
    """A job stopped for losing its lease, not for a push: its head is still the PR's."""
    marks = Marks()
    _mark(client, marks)

    conclude_superseded(client, marks.close(), target=TARGET)

    runs = github.repo(REPO).latest_check_runs(HEAD)
    assert runs["gradgate"].status == "in_progress" and runs["gradgate"].conclusion is None
    assert github.requests("PATCH", "/check-runs/") == []


def test_a_plan_that_comes_after_the_job_was_given_up_marks_nothing() -> None:
    marks = Marks()
    assert marks.close() == ()
    published: list[str] = []

    def publish() -> Pending:
        published.append(HEAD)
        return Pending({})

    marks.mark(HEAD, publish)

    assert published == [] and marks.close() == ()
