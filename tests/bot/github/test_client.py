"""bot.github.client: PyGithub over real HTTP against the fake GitHub, faults included."""

from __future__ import annotations

import pytest
from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy
from gradgate.bot.github.ports import Status
from gradgate.checks.errors import GitHubError

from tests.fakegithub import BOT, FakeGitHub

REPO = "acme/model"
HEAD = "a" * 40
BASE = "b" * 40
FAST = RetryPolicy(total=3, backoff_s=0.001, request_interval_s=0, write_interval_s=0)


@pytest.fixture
def client(github: FakeGitHub) -> GitHubClient:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    return GitHubClient(Connection(api_url=github.url, token=github.token(), repo=REPO, retry=FAST))


def test_reads_the_pull_request_head_base_and_author(client: GitHubClient) -> None:
    pr = client.pull(7)

    assert (pr.number, pr.head_sha, pr.base_sha, pr.author, pr.state) == (
        7,
        HEAD,
        BASE,
        "alice",
        "open",
    )
    assert pr.head_repo == REPO


def test_comments_are_created_edited_listed_and_deleted_as_the_bot(
    github: FakeGitHub, client: GitHubClient
) -> None:
    made = client.create_comment(7, "hello")
    client.edit_comment(7, made.id, "hello again")
    listed = client.comments(7)

    assert [(c.body, c.author, c.author_is_bot) for c in listed] == [("hello again", BOT, True)]
    client.delete_comment(7, made.id)
    client.delete_comment(7, made.id)  # already gone: fine
    assert github.comments(REPO, 7) == []


def test_listing_reads_every_page_100_at_a_time(github: FakeGitHub, client: GitHubClient) -> None:
    for i in range(230):
        github.add_comment(REPO, 7, f"comment {i}", author="bob")

    listed = client.comments(7)

    assert [c.body for c in listed] == [f"comment {i}" for i in range(230)]
    pages = github.requests("GET", r"/issues/7/comments$")
    assert len(pages) == 3


def test_status_reaction_and_permission(github: FakeGitHub, client: GitHubClient) -> None:
    github.repo(REPO).collaborators["carol"] = "write"
    github.user("dave")
    comment = github.add_comment(REPO, 7, "/recheck", author="carol")

    client.set_status(HEAD, Status("gradgate", "success", "all good", "https://ci.example/1"))
    client.react(7, comment.id, "eyes")

    assert github.repo(REPO).latest_statuses(HEAD)["gradgate"].state == "success"
    assert [r.content for r in github.repo(REPO).reactions] == ["eyes"]
    assert client.permission("carol") == "write"
    assert client.permission("dave") == "none"
    assert client.permission("nobody-at-all") == "none"


def test_5xx_and_secondary_rate_limits_are_retried_until_they_pass(
    github: FakeGitHub, client: GitHubClient
) -> None:
    github.faults.fail_next(1, status=502)
    github.faults.rate_limit_next(1, retry_after=0)
    github.faults.fail_next(1, status=503)

    made = client.create_comment(7, "survived")

    assert made.body == "survived"
    assert [r.status for r in github.requests("POST")] == [502, 403, 503, 201]


def test_a_rate_limit_without_retry_after_waits_the_configured_secondary_wait(
    github: FakeGitHub,
) -> None:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    policy = RetryPolicy(
        total=2,
        backoff_s=0.001,
        secondary_rate_wait_s=0.01,
        request_interval_s=0,
        write_interval_s=0,
    )
    client = GitHubClient(
        Connection(api_url=github.url, token=github.token(), repo=REPO, retry=policy)
    )
    github.faults.rate_limit_next(1, retry_after=None)

    assert client.pull(7).number == 7


@pytest.mark.parametrize("status", [500, 502, 403])
def test_retries_exhausted_is_an_error_never_a_success(
    github: FakeGitHub, client: GitHubClient, status: int
) -> None:
    github.faults.fail_next(10, status=status, retry_after=0 if status == 403 else None)

    with pytest.raises(GitHubError, match="set status"):
        client.set_status(HEAD, Status("gradgate", "success", "all good"))

    assert github.repo(REPO).statuses == []
    assert len(github.requests("POST")) == FAST.total + 1


def test_a_read_only_token_cannot_write_and_says_so(github: FakeGitHub) -> None:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    client = GitHubClient(
        Connection(api_url=github.url, token=github.token(write=False), repo=REPO, retry=FAST)
    )

    with pytest.raises(GitHubError, match=r"403.*not accessible"):
        client.create_comment(7, "hi")


def test_slow_answers_still_arrive(github: FakeGitHub, client: GitHubClient) -> None:
    github.faults.delay_s = 0.2

    assert client.pull(7).head_sha == HEAD


def test_latest_run_for_the_head_and_reruns(github: FakeGitHub, client: GitHubClient) -> None:
    old = github.add_run(REPO, workflow="gradgate.yml", head_sha=HEAD, head_ref="feature")
    new = github.add_run(REPO, workflow="gradgate.yml", head_sha=HEAD, head_ref="feature")
    github.add_run(REPO, workflow="gradgate.yml", head_sha=BASE, head_ref="feature")
    github.add_run(REPO, workflow="other.yml", head_sha=HEAD, head_ref="feature")

    run = client.latest_run("gradgate.yml", HEAD)
    assert run is not None and run.id == new.id and old.id < new.id
    client.rerun(run.id, failed_only=True)
    assert github.repo(REPO).runs[new.id].reruns == ["failed"]
    assert client.latest_run("gradgate.yml", "c" * 40) is None
