from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

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
