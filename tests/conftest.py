from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gradgate.checks.sandbox import probe

from tests.fakegithub import FakeGitHub
from tests.gitrepo import GitRepo

# Slow by nature (a torch child per revision, a whole demo, a wheel installed, workers killed
# with -9 and waited for): marked `slow`, run first, so that on 2 workers none of them starts
# last and runs alone at the end. CI runs them all; `-m "not slow"` leaves them out locally.
SLOW = (
    "tests/bot/app/test_fuzz.py",
    "tests/bot/app/test_publishing_fails.py",
    "tests/bot/app/test_workers.py",
    "tests/bot/doors/test_action.py::test_open_push_push",
    "tests/bot/doors/test_action_chaos.py",
    "tests/bot/doors/test_action_review.py::test_with_a_fifth_of_api_calls_failing",
    "tests/bot/doors/test_action_trust.py",
    "tests/bot/doors/test_cli_try_config.py",
    "tests/bot/doors/test_demo.py::test_demo_exits_0",
    "tests/bot/doors/test_init_factory.py",
    "tests/bot/report/test_render.py::test_updating_golden_files",
    "tests/checks/checkpoint/test_blocks.py",
    "tests/checks/checkpoint/test_scenarios.py",
    "tests/checks/perf/test_check.py",
    "tests/test_packaging.py::test_installed_beside",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: slow by nature; runs first (tests/conftest.py)")


def pytest_itemcollected(item: pytest.Item) -> None:
    if item.nodeid.startswith(SLOW):
        item.add_marker(pytest.mark.slow)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the slow tests first; `--dist loadgroup` then hands tests out one by one."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: else as is


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
