from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gradgate.checks.sandbox import probe

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


@pytest.fixture
def bubblewrap() -> str:
    """The sandbox's strong path. scripts/test.sh sets GRADGATE_TEST_SANDBOX=bubblewrap where it
    could install bubblewrap: there a bubblewrap that does not work fails the test, never skips."""
    found = probe.bubblewrap()
    if found.path is None:
        if os.environ.get("GRADGATE_TEST_SANDBOX") == "bubblewrap":
            pytest.fail(f"bubblewrap should work on this machine: {found.reason}")
        pytest.skip(found.reason or "no bubblewrap")
    return found.path


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A machine without bubblewrap: a PATH that holds git and nothing else."""
    bin_dir = tmp_path / "path-without-bwrap"
    bin_dir.mkdir()
    git = shutil.which("git")
    if git is not None:
        (bin_dir / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(bin_dir))
    probe.bubblewrap.cache_clear()
    yield
    probe.bubblewrap.cache_clear()


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
