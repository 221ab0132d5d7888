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
    "tests/bot/app/test_cache_app.py",
    "tests/bot/app/test_end_to_end.py",
    "tests/bot/app/test_fork_sandbox.py",
    "tests/bot/app/test_fuzz.py",
    "tests/bot/app/test_one_verdict.py",
    "tests/bot/app/test_publishing_fails.py",
    "tests/bot/app/test_suppressions.py",
    "tests/bot/app/test_workers.py",
    "tests/bot/doors/action/test_cache_action.py",
    "tests/bot/doors/action/test_chaos.py",
    "tests/bot/doors/action/test_label.py",
    "tests/bot/doors/action/test_one_verdict.py",
    "tests/bot/doors/action/test_publish_left.py",
    "tests/bot/doors/action/test_pull_request.py::test_open_push_push",
    "tests/bot/doors/action/test_review.py::test_with_a_fifth_of_api_calls_failing",
    "tests/bot/doors/action/test_trust.py",
    "tests/bot/doors/action/test_trust_walk.py",
    "tests/bot/doors/cli/test_cache_cli.py",
    "tests/bot/doors/cli/test_init_factory.py",
    "tests/bot/doors/cli/test_try_config.py",
    "tests/bot/doors/test_demo.py::test_demo_catches",
    "tests/bot/doors/test_demo.py::test_demo_exits_0",
    "tests/bot/doors/test_demo.py::test_demo_json",
    "tests/bot/git/test_repository.py::test_hundred_thousand_file_diff",
    "tests/bot/report/render/test_reports.py::test_updating_golden_files",
    "tests/checks/behaviour/test_scenarios.py",
    "tests/checks/checkpoint/test_bad_references.py",
    "tests/checks/checkpoint/test_blocks.py",
    "tests/checks/checkpoint/test_intended.py",
    "tests/checks/checkpoint/test_scenarios.py",
    "tests/checks/checkpoint/test_variant_scenarios.py",
    "tests/checks/commands/test_cached.py",
    "tests/checks/commands/test_check.py",
    "tests/checks/commands/test_scenarios.py",
    "tests/checks/data/test_check.py",
    "tests/checks/data/test_dataset.py::test_a_dataset_entrypoint_end_to_end",
    "tests/checks/data/test_torch_rng.py",
    "tests/checks/gradient/test_errors.py",
    "tests/checks/gradient/test_findings.py",
    "tests/checks/gradient/test_one_cause.py::test_one_detach_in_a_repeated_block",
    "tests/checks/gradient/test_scenarios.py",
    "tests/checks/gradient/test_untested.py",
    "tests/checks/metrics/test_latency.py",
    "tests/checks/model/test_exchange.py::test_a_fifo_hard_link_or_rename",
    "tests/checks/model/test_exchange.py::test_a_link_base_planted",
    "tests/checks/model/test_exchange.py::test_head_cannot_write",
    "tests/checks/model/test_exchange.py::test_symlinks_planted",
    "tests/checks/model/test_exchange.py::test_three_large_files",
    "tests/checks/model/test_exchange.py::test_with_process_level",
    "tests/checks/model/test_plan_gate.py",
    "tests/checks/cache/test_gate_cache.py",
    "tests/checks/cache/test_replay.py",
    "tests/checks/model/test_run.py",
    "tests/checks/model/test_session.py",
    "tests/checks/perf/test_check.py",
    "tests/checks/sandbox/test_attacks.py",
    "tests/checks/sandbox/test_run.py::test_tiny_torch_model",
    "tests/test_packaging.py::test_installed_beside",
    "tests/test_packaging.py::test_the_wheel_holds",
)
# ... but these few stay in the default run, so that it still runs the model checks end to end
# in real sandboxed children: one gradient scenario, one checkpoint scenario, one gate
# running both checks in one child per revision, one behaviour breakage, one documented
# command broken at head (plain Python, then a torch training script), and one model plan.
KEPT = (
    "tests/checks/behaviour/test_scenarios.py::"
    "test_a_breakage_is_reported_at_the_line_that_changed[example-residual-dropped]",
    "tests/checks/checkpoint/test_scenarios.py::test_c1_",
    "tests/checks/commands/test_check.py::test_a_script_that_breaks_at_head",
    "tests/checks/commands/test_scenarios.py::test_a_planted_regression_blocks_at_its_line[pin-",
    "tests/checks/gradient/test_scenarios.py::test_g10_",
    "tests/checks/model/test_session.py::test_a_gate_starts_one_child_per_revision",
    "tests/checks/model/test_plan_gate.py::test_a_layer_added_shows",
)


# The long tests, which start first, the longest first (pytest_collection_modifyitems), so that on
# 2 workers none starts last and runs alone at the end: a prefix of node ids (a file, or a test)
# and the seconds each test it names took in the suite on a busy 2-core machine (only their order
# matters); the longest prefix that matches decides. A test not named here counts as short and
# keeps its place. tests/test_suite_order.py checks that each prefix names a test.
LONG: dict[str, float] = {
    # the slow group: the perf check times its runs in 6 children each
    "tests/checks/perf/test_check.py::test_a_four_times_wider_hidden_layer": 280,
    "tests/checks/perf/test_check.py::test_unchanged_code_never_blocks": 250,
    "tests/checks/perf/test_check.py::test_a_module_that_sleeps": 200,
    "tests/test_packaging.py::test_installed_beside": 100,  # builds the wheels the other reads
    "tests/checks/perf/test_check.py::test_the_factorys_own_step": 90,
    "tests/checks/cache/test_gate_cache.py::test_every_cached_check": 90,
    "tests/checks/metrics/test_latency.py::test_a_head_whose_inference": 80,
    "tests/bot/doors/cli/test_init_factory.py::test_init_": 60,
    "tests/bot/app/test_cache_app.py::test_on_redis": 60,
    "tests/bot/doors/action/test_label.py::test_the_label_approved_one_head": 60,
    "tests/checks/gradient/test_untested.py::test_a_variant_that_cannot_be_used": 50,
    "tests/checks/checkpoint/test_scenarios.py::test_c6_": 50,
    "tests/checks/model/test_run.py::test_a_file_entrypoint": 50,
    # the combined model's runs (tests/once.py), built once: the other rows find them built
    "tests/checks/gradient/test_scenarios.py::"
    "test_a_gradient_regression_is_classified_and_blocks_under_its_module_prefix[G1]": 45,
    "tests/checks/model/test_session.py::test_a_crash_in_one_checks_work": 43,
    "tests/checks/model/test_session.py::test_a_hang_in_one_checks_work": 43,
    "tests/checks/checkpoint/test_scenarios.py::test_c4_": 40,
    "tests/bot/app/test_end_to_end.py::test_code_from_an_untrusted_author": 39,
    "tests/bot/doors/action/test_label.py::test_the_ok_to_test_label_by_a_writer": 38,
    "tests/bot/doors/action/test_trust.py::test_an_approved_run_completes": 35,
    "tests/checks/checkpoint/test_scenarios.py::test_c5_a_key_conditional": 35,
    "tests/checks/model/test_run.py::test_a_factory_beside_an_outside_config": 34,
    "tests/checks/data/test_dataset.py::test_a_dataset_entrypoint_end_to_end": 33,
    "tests/bot/app/test_approvals.py::test_a_replayed_ok_to_test": 33,
    "tests/bot/app/test_workers.py::test_several_workers_on_redis": 33,
    "tests/bot/doors/action/test_chaos.py::test_a_200_kb_report": 32,
    "tests/checks/data/test_torch_rng.py::test_torch_imported_by_the_transform": 32,
    "tests/checks/gradient/test_errors.py": 30,
    # the JSON demo, run once (tests/once.py) for the first test that reads it, the other later
    "tests/bot/doors/test_demo.py::test_demo_catches": 30,
    "tests/bot/doors/test_demo.py::test_demo_exits_0": 25,
    # the default run
    "tests/bot/github/test_workflows.py::test_shipped_action_and_workflows_pass_both": 24,
    "tests/bot/config/test_yaml_lines.py::test_libyaml_composition_reads_exactly": 16,
    "tests/checks/model/test_turns.py": 12,
    "tests/bot/config/test_model.py::test_a_long_config_without_anchors": 14,
    "tests/checks/checkpoint/child/test_meta.py::test_a_factory_with_an_embedding": 13,
    "tests/checks/checkpoint/test_scenarios.py::test_c1_": 13,
    "tests/checks/gradient/test_scenarios.py::test_g10_": 12,
    "tests/bot/doors/action/test_review.py::test_the_next_run_clears": 12,
    "tests/bot/doors/action/test_review.py::test_request_changes_on_failure": 11,
    "tests/checks/model/test_session.py::test_a_gate_starts_one_child": 10,
    "tests/checks/model/test_crash.py::test_a_loss_called_with_swapped_arguments": 10,
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: slow by nature (tests/conftest.py: SLOW)")


def pytest_itemcollected(item: pytest.Item) -> None:
    if item.nodeid.startswith(SLOW) and not item.nodeid.startswith(KEPT):
        item.add_marker(pytest.mark.slow)


def cost(nodeid: str) -> float:
    """A test's seconds in LONG (its longest prefix there), or 0: short."""
    matches = [(len(prefix), s) for prefix, s in LONG.items() if nodeid.startswith(prefix)]
    return max(matches, default=(0, 0.0))[1]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests start first (LONG, longest first; then the rest of the slow group or the
    model checks kept from it, then the rest as collected), so that on 2 workers none starts last
    and runs alone at the end; `--dist loadgroup` then hands tests out one by one."""
    items.sort(  # stable: else as collected
        key=lambda item: (
            -cost(item.nodeid),
            item.get_closest_marker("slow") is None and not item.nodeid.startswith(KEPT),
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


@pytest.fixture(autouse=True)
def _own_cache_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Each test's `gradgate check` gets an empty result cache of its own (docs/caching.md),
    never the user's: a result one test computed is never another test's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


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
