"""What a worker needs from GitHub, as a narrow interface (the worker gets one as an argument).

The worker talks to GitHub through bot/github's port (``GitHubPort``) on one repository at a
time, and fetches with a token of its own. ``bot.app.github.AppForge`` is the App's: installation
tokens scoped to the job's repository. Tests use it against the one fake GitHub.
"""

from __future__ import annotations

from typing import Protocol

from gradgate.bot.app.jobs import PullRequest
from gradgate.bot.github.ports import GitHubPort


class Forge(Protocol):
    @property
    def bot_login(self) -> str:
        """Whose comments are gradgate's: the App's `<slug>[bot]`."""
        ...

    def fetch_token(self, pr: PullRequest) -> str | None:
        """A token that may read ``pr.repo``'s contents, for git (None: the clone needs none)."""
        ...

    def port(self, pr: PullRequest) -> GitHubPort:
        """GitHub on ``pr.repo``, with a token that may comment and report there."""
        ...
