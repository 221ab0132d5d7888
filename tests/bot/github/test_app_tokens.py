"""bot.github.client.AppTokens: App id + private key -> JWT -> an installation token for one
repository, cached until shortly before it expires; against the fake GitHub, which checks the
JWT's signature and scopes the token."""

from __future__ import annotations

import time

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from gradgate.bot.github.app_tokens import FETCH, TOKEN_MARGIN_S, AppCredentials, AppTokens
from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy
from gradgate.checks.errors import GitHubError, UsageError

from tests.fakegithub import FakeGitHub

REPO, OTHER = "acme/model", "acme/other"
FAST = RetryPolicy(total=2, backoff_s=0.001, request_interval_s=0, write_interval_s=0)
INSTALLATION = 77


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tokens(github: FakeGitHub, clock: Clock) -> AppTokens:
    pem = github.app("4242", slug="gradgate")
    github.install(INSTALLATION, REPO, OTHER)
    github.open_pull(REPO, 7, head="a" * 40, base="b" * 40, author="alice")
    github.open_pull(OTHER, 1, head="c" * 40, base="d" * 40, author="alice")
    return AppTokens(AppCredentials(github.url, "4242", pem, retry=FAST), clock=clock)


def test_the_app_comments_as_its_bot_with_a_token_for_one_repository(
    github: FakeGitHub, tokens: AppTokens
) -> None:
    client = tokens.client(INSTALLATION, REPO)
    client.create_comment(7, "hello")

    assert [c.author for c in github.comments(REPO, 7, by=None)] == ["gradgate[bot]"]
    token = tokens.token(INSTALLATION, REPO)
    elsewhere = GitHubClient(Connection(github.url, token, OTHER, retry=FAST))
    with pytest.raises(GitHubError) as refused:
        elsewhere.pull(1)  # installed there too, but this token names only acme/model
    assert refused.value.status == 404


def test_a_token_is_reused_until_shortly_before_it_expires(
    github: FakeGitHub, tokens: AppTokens, clock: Clock
) -> None:
    first = tokens.token(INSTALLATION, REPO)
    assert tokens.token(INSTALLATION, REPO) == first
    assert len(github.requests("POST", "/access_tokens$")) == 1

    # An hour's token, now too close to its end. The fake GitHub stamps it by the real clock
    # when it answers, which on a busy machine is seconds after the test's clock was set.
    clock.now = time.time() + 3600 - TOKEN_MARGIN_S + 1
    assert tokens.token(INSTALLATION, REPO) != first
    assert len(github.requests("POST", "/access_tokens$")) == 2


def test_the_fetch_token_may_read_but_not_write(github: FakeGitHub, tokens: AppTokens) -> None:
    token = tokens.token(INSTALLATION, REPO, use=FETCH)
    client = GitHubClient(Connection(github.url, token, REPO, retry=FAST))

    assert client.pull(7).number == 7
    with pytest.raises(GitHubError) as refused:
        client.create_comment(7, "nope")
    assert refused.value.status == 403


def test_a_repository_the_app_is_not_installed_on_gets_no_token(
    github: FakeGitHub, tokens: AppTokens
) -> None:
    github.repo("acme/private")
    with pytest.raises(GitHubError) as refused:
        tokens.token(INSTALLATION, "acme/private")
    assert refused.value.status == 422


def test_a_jwt_signed_with_another_key_is_refused(github: FakeGitHub, tokens: AppTokens) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    impostor = AppTokens(AppCredentials(github.url, "4242", other.decode(), retry=FAST))
    with pytest.raises(GitHubError) as refused:
        impostor.token(INSTALLATION, REPO)
    assert refused.value.status == 401


def test_a_private_key_that_is_not_one_is_a_usage_error(github: FakeGitHub) -> None:
    with pytest.raises(UsageError, match="private key"):
        AppTokens(AppCredentials(github.url, "4242", "not a key"))
