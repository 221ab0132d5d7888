from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakegithub import FakeGitHub
from tests.gitrepo import GitRepo


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., GitRepo]:
    """Real git repositories in the test's temp dir: ``make_repo()``, ``make_repo("name")``."""

    def factory(name: str = "repo") -> GitRepo:
        return GitRepo(tmp_path / name)

    return factory


@pytest.fixture
def repo(make_repo: Callable[..., GitRepo]) -> GitRepo:
    return make_repo()


@pytest.fixture(scope="session")
def _github_server() -> Iterator[FakeGitHub]:
    fake = FakeGitHub().start()
    yield fake
    fake.stop()


@pytest.fixture
def github(_github_server: FakeGitHub) -> Iterator[FakeGitHub]:
    """The one fake GitHub, emptied for this test; a response off GitHub's OpenAPI fails it."""
    _github_server.reset()
    yield _github_server
    assert _github_server.violations == [], "the fake GitHub sent or got something GitHub would not"
