"""The App's ``Forge``: bot/github's client with installation tokens for the job's repository.

Each job gets tokens for its own repository only: one that may read contents, for git, and one
that may comment and report, for the API (``bot.github.client.AppTokens`` caches both until
shortly before they expire). The worker holds them; the runner and PR code never do.
"""

from __future__ import annotations

import threading

from gradgate.bot.app.jobs import PullRequest
from gradgate.bot.app.settings import AppSettings, require_app_credentials
from gradgate.bot.github.app_tokens import FETCH, AppCredentials, AppTokens
from gradgate.bot.github.client import GitHubClient, RetryPolicy
from gradgate.bot.github.ports import GitHubPort
from gradgate.checks.errors import UsageError


class AppForge:
    def __init__(self, tokens: AppTokens, *, bot_login: str) -> None:
        self.tokens = tokens
        self.bot_login = bot_login
        self._clients: dict[str, tuple[str, GitHubClient]] = {}  # repo -> (its token, client)
        self._lock = threading.Lock()

    def fetch_token(self, pr: PullRequest) -> str:
        return self.tokens.token(_installation(pr), pr.repo, use=FETCH)

    def port(self, pr: PullRequest) -> GitHubPort:
        token = self.tokens.token(_installation(pr), pr.repo)
        with self._lock:
            held = self._clients.get(pr.repo)
            if held is None or held[0] != token:  # a fresh token: a fresh client
                if held is not None:
                    held[1].close()
                self._clients[pr.repo] = (token, self.tokens.client(_installation(pr), pr.repo))
            return self._clients[pr.repo][1]


def _installation(pr: PullRequest) -> int:
    if pr.installation is None:  # GitHub names it in every delivery to an App
        raise UsageError(f"the delivery for {pr.key} named no App installation")
    return pr.installation


def app_forge(settings: AppSettings, *, retry: RetryPolicy | None = None) -> AppForge:
    """The worker's GitHub, from GRADGATE_APP_ID and GRADGATE_APP_PRIVATE_KEY(_FILE)."""
    require_app_credentials(settings)
    assert settings.app_id is not None and settings.private_key is not None
    credentials = AppCredentials(
        settings.api_url, settings.app_id, settings.private_key, retry=retry or RetryPolicy()
    )
    return AppForge(AppTokens(credentials), bot_login=settings.bot_login)
