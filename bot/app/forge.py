"""What a worker needs from GitHub, as a narrow interface (the worker gets one as an argument).

The implementation is the App's PyGithub client (bot/github/); tests use the one fake GitHub.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from gradgate.bot.app.jobs import PullRequest
from gradgate.bot.report.render import Report


@dataclass(frozen=True, slots=True)
class PullInfo:
    head_sha: str
    base_ref: str
    author: str
    open: bool = True


class Forge(Protocol):
    def token(self, pr: PullRequest) -> str | None:
        """An installation token for fetching ``pr.repo`` (None: the clone URL needs none)."""
        ...

    def pull(self, pr: PullRequest) -> PullInfo: ...

    def can_write(self, pr: PullRequest, login: str) -> bool:
        """Whether ``login`` has write (or maintain, or admin) access to the PR's repository."""
        ...

    def publish(self, pr: PullRequest, report: Report) -> None:
        """The sticky comment and the statuses for ``report`` (serialised per PR by the worker)."""
        ...

    def acknowledge(self, pr: PullRequest, comment_id: int) -> None:
        """React with 👀 to a command the worker acts on."""
        ...

    def reply(self, pr: PullRequest, body: str) -> None: ...
