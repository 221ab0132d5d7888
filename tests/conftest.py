from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gradgate.checks.sandbox import probe

from tests.fakegithub import FakeGitHub
from tests.gitrepo import GitRepo

# The `slow` group: tests slow by nature, that by design start sandboxed children which each
# import torch (the torch scenario batteries), or do other multi-second work (a wheel installed,
# the whole demo, App workers killed with -9 and waited for, real-bubblewrap attack batteries,
# perf and latency timing, the trusted workflow's stages run end to end). `bash scripts/test.sh`
# leaves them out; `bash scripts/test.sh --all` (CI, .ci/run) runs them after the rest.
# A prefix of node ids: a file, or one test.
SLOW = (
    "tests/bot/app/test_approvals.py",
    "tests/bot/app/test_end_to_end.py",
    "tests/bot/app/test_fork_sandbox.py",
    "tests/bot/app/test_fuzz.py",
    "tests/bot/app/test_publishing_fails.py",
    "tests/bot/app/test_workers.py",
    "tests/bot/doors/test_action.py::test_open_push_push",
    "tests/bot/doors/test_action_chaos.py",
    "tests/bot/doors/test_action_label.py",
    "tests/bot/doors/test_action_publish_left.py",
    "tests/bot/doors/test_action_review.py::test_with_a_fifth_of_api_calls_failing",
    "tests/bot/doors/test_action_trust.py",
    "tests/bot/doors/test_action_trust_walk.py",
    "tests/bot/doors/test_cli_try_config.py",
    "tests/bot/doors/test_demo.py::test_demo_catches",
    "tests/bot/doors/test_demo.py::test_demo_exits_0",
    "tests/bot/doors/test_demo.py::test_demo_json",
    "tests/bot/doors/test_init_factory.py",
    "tests/bot/git/test_repository.py::test_hundred_thousand_file_diff",
    "tests/bot/report/test_render.py::test_updating_golden_files",
    "tests/checks/checkpoint/test_bad_references.py",
    "tests/checks/checkpoint/test_blocks.py",
    "tests/checks/checkpoint/test_intended.py",
    "tests/checks/checkpoint/test_scenarios.py",
    "tests/checks/data/test_check.py",
    "tests/checks/data/test_dataset.py::test_a_dataset_entrypoint_end_to_end",
    "tests/checks/data/test_torch_rng.py",
    "tests/checks/gradient/test_errors.py",
    "tests/checks/gradient/test_findings.py",
    "tests/checks/gradient/test_scenarios.py",
    "tests/checks/gradient/test_untested.py",
    "tests/checks/metrics/test_latency.py",
    "tests/checks/model/test_run.py",
    "tests/checks/model/test_session.py",
    "tests/checks/perf/test_check.py",
    "tests/checks/sandbox/test_attacks.py",
    "tests/checks/sandbox/test_run.py::test_tiny_torch_model",
    "tests/test_packaging.py::test_installed_beside",
    "tests/test_packaging.py::test_the_wheel_holds",
)
# ... but these few stay in the default run, so that it still runs the model checks end to end
# in real sandboxed children: one gradient scenario, one checkpoint scenario, and one gate
# running both checks in one child per revision.
KEPT = (
    "tests/checks/checkpoint/test_scenarios.py::test_c1_",
    "tests/checks/gradient/test_scenarios.py::test_g10_",
    "tests/checks/model/test_session.py::test_a_gate_starts_one_child_per_revision",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: slow by nature (tests/conftest.py: SLOW)")


def pytest_itemcollected(item: pytest.Item) -> None:
    if item.nodeid.startswith(SLOW) and not item.nodeid.startswith(KEPT):
        item.add_marker(pytest.mark.slow)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests start first (the slow group's, or in the default run the model checks
    kept in it), so that on 2 workers none starts last and runs alone at the end; `--dist
    loadgroup` then hands tests out one by one."""
    items.sort(  # stable: else as collected
        key=lambda item: (
            item.get_closest_marker("slow") is None and not item.nodeid.startswith(KEPT)
        )
    )


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
