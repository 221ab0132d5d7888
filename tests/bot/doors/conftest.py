from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot.doors.action.world import World, make_world
from tests.fakegithub import FakeGitHub
from tests.gitrepo import GitRepo


@pytest.fixture
def world(
    repo: GitRepo, github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[World]:
    """A pull request on the fake GitHub for `gradgate action` (tests/bot/doors/action/world)."""
    yield from make_world(repo, github, tmp_path, monkeypatch)
