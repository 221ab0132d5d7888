"""A GitHub App's installation tokens: the App's JWT exchanged for a token per repository and
use, cached until shortly before it expires (PyGithub's GithubIntegration; the App door's)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from github import Auth, GithubIntegration
from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy, call, retry
from gradgate.checks.errors import UsageError

# An installation token lives an hour. One is used again only while it has this long left, so
# a token handed to a job never runs out while the job fetches or publishes with it.
TOKEN_MARGIN_S = 15 * 60
# What each use of a token may do; GitHub caps it at what the App was granted (app-manifest.json).
FETCH: Mapping[str, str] = {"contents": "read"}
PUBLISH: Mapping[str, str] = {
    "contents": "read",
    "pull_requests": "write",
    "issues": "write",
    "statuses": "write",
    "checks": "write",
}


@dataclass(frozen=True, slots=True)
class AppCredentials:
    api_url: str
    app_id: str
    private_key: str  # PEM, as GitHub hands it out
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout_s: int = 30


class AppTokens:
    """Installation tokens of a GitHub App, each for one repository and one use (``FETCH`` or
    ``PUBLISH``), cached until TOKEN_MARGIN_S before they expire. Thread-safe.

    The App signs a JWT with its private key (PyGithub's ``AppAuth``) and exchanges it for an
    installation token. PyGithub's own ``get_access_token`` cannot name repositories, so the
    request goes through its requester (retries and errors as for every other call).
    """

    def __init__(
        self, credentials: AppCredentials, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.credentials = credentials
        self._clock = clock
        auth = Auth.AppAuth(credentials.app_id, credentials.private_key)
        try:
            auth.create_jwt()
        except Exception as exc:  # PyJWT and cryptography raise several kinds for a bad key
            raise UsageError(
                f"the App's private key cannot sign a JWT ({type(exc).__name__}): give the .pem "
                "file GitHub generated for the App"
            ) from None
        self._integration = GithubIntegration(
            auth=auth,
            base_url=credentials.api_url.rstrip("/"),
            retry=retry(credentials.retry),
            timeout=credentials.timeout_s,
            seconds_between_requests=credentials.retry.request_interval_s,
            seconds_between_writes=None,  # token requests are not content writes
        )
        self._cache: dict[tuple[int, str, str], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def token(self, installation: int, repo: str, *, use: Mapping[str, str] = PUBLISH) -> str:
        key = (installation, repo, repr(sorted(use.items())))
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached[1] - self._clock() > TOKEN_MARGIN_S:
                return cached[0]
            body = {"repositories": [repo.split("/", 1)[-1]], "permissions": dict(use)}
            with call(f"get an installation token for {repo}"):
                _, data = self._integration.requester.requestJsonAndCheck(
                    "POST", f"/app/installations/{installation}/access_tokens", input=body
                )
            token, expires = str(data["token"]), datetime.fromisoformat(data["expires_at"])
            self._cache[key] = (token, expires.timestamp())
            return token

    def client(self, installation: int, repo: str) -> GitHubClient:
        """A client on ``repo`` with a PUBLISH token; cheap, so one per use."""
        c, token = self.credentials, self.token(installation, repo)
        return GitHubClient(Connection(c.api_url, token, repo, c.retry, c.timeout_s))

    def close(self) -> None:
        self._integration.close()
