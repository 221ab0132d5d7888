"""The check with the gate's result cache: a revision's runs are read back where its whole tree,
the command and the settings are unchanged, and the verdict is made afresh from them."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from gradgate.checks.base import CheckResult, Outcome
from gradgate.checks.cache.results import CachedSide, ResultCache
from gradgate.checks.cache.store import FolderStore
from gradgate.checks.commands.cached import CommandCache
from gradgate.checks.commands.check import CommandsCheck
from gradgate.checks.commands.settings import CommandsSettings
from gradgate.checks.model.session import ModelSessions

from tests.gitrepo import GitRepo

README = "# Tiny\n\n```bash\npython train.py --steps=3\npython sample.py\n```\n"
TRAIN = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=10)
args = parser.parse_args()
print("done", args.steps)
"""
BROKEN = TRAIN.replace('print("done", args.steps)', 'print("done", args.stepz)')
BASE = {"README.md": README, "train.py": TRAIN, "sample.py": 'print("sampled")\n'}
SETTINGS = CommandsSettings(timeout_s=120.0, memory_mb=2048)


def gate(
    folder: Path, head: Mapping[str, str | None], cache: ResultCache | None
) -> tuple[CheckResult, list[CachedSide]]:
    """The PR ``head`` over ``BASE`` in a fresh repository under ``folder``, checked in a gate
    whose result cache is ``cache``; its result and the sides read from the cache."""
    with (
        ModelSessions(cache) as models,
        GitRepo(folder).pull_request_context(
            BASE, head, SETTINGS, python=sys.executable, models=models
        ) as ctx,
    ):
        return CommandsCheck().run(ctx), ctx.cached


def decided(result: CheckResult) -> tuple[object, ...]:
    return result.outcome, result.summary, result.findings


def test_a_second_gate_reads_both_sides_from_the_cache_and_decides_the_same(
    tmp_path: Path,
) -> None:
    store = FolderStore(tmp_path / "cache")
    first, first_cached = gate(tmp_path / "one", {"train.py": BROKEN}, ResultCache(store))
    # The same trees in another repository: other commits, the same files.
    again, cached = gate(tmp_path / "two", {"train.py": BROKEN}, ResultCache(store))

    assert first.outcome is Outcome.FAIL and first_cached == []
    assert (first.metrics["runs"], first.metrics["from_cache"]) == (3, 0)
    assert decided(again) == decided(first)
    assert (again.metrics["runs"], again.metrics["from_cache"]) == (0, 3)
    assert {side.revision for side in cached} == {"base", "head"}


def test_a_head_that_changes_any_file_runs_again_at_head_only(tmp_path: Path) -> None:
    store = FolderStore(tmp_path / "cache")
    gate(tmp_path / "one", {"train.py": BROKEN}, ResultCache(store))
    # A file no command imports still changes the tree: a script may read it.
    head = {"train.py": BROKEN, "notes.txt": "read me\n"}
    result, cached = gate(tmp_path / "two", head, ResultCache(store))

    assert result.outcome is Outcome.FAIL
    assert (result.metrics["runs"], result.metrics["from_cache"]) == (2, 1)
    assert [side.revision for side in cached] == ["base"]


def test_without_the_cache_nothing_is_read_nor_written(tmp_path: Path) -> None:
    store = FolderStore(tmp_path / "cache")
    gate(tmp_path / "one", {"train.py": BROKEN}, ResultCache(store))
    size = store.size()
    # `cache: false` and --no-cache hand the gate no cache.
    result, cached = gate(tmp_path / "two", {"train.py": BROKEN}, None)

    assert (result.metrics["runs"], result.metrics["from_cache"], cached) == (3, 0, [])
    assert store.size() == size


def test_a_fork_reads_trusted_base_runs_and_keeps_its_head_runs_to_itself(
    tmp_path: Path,
) -> None:
    store = FolderStore(tmp_path / "cache")
    gate(tmp_path / "one", {"train.py": BROKEN}, ResultCache(store))
    head = {"train.py": BROKEN, "notes.txt": "from a fork\n"}
    fork, cached = gate(tmp_path / "two", head, ResultCache.for_fork(store, 7))
    trusted, _ = gate(tmp_path / "three", head, ResultCache(store))

    assert (fork.metrics["runs"], fork.metrics["from_cache"]) == (2, 1)
    assert [side.revision for side in cached] == ["base"]
    # What the fork's code computed is not read by a trusted gate.
    assert (trusted.metrics["runs"], trusted.metrics["from_cache"]) == (2, 1)


def test_a_run_past_its_limit_is_never_stored(tmp_path: Path) -> None:
    store = FolderStore(tmp_path / "cache")
    request = {"argv": ["{python}", "sample.py"], "env": {}, "prepare": None, "timeout_s": 1.0}
    with GitRepo(tmp_path / "repo").pull_request_context(
        BASE, {"sample.py": "import time\ntime.sleep(9)\n"}, SETTINGS, python=sys.executable
    ) as ctx:
        runs = CommandCache(ResultCache(store), ctx, SETTINGS, program="p", device="cpu")
        runs.save("head", request, {"status": "timeout", "tail": ""})
        assert store.size() == 0
        assert runs.lookup("head", request) is None

        runs.save("head", request, {"status": "failed", "returncode": 1, "tail": "boom"})
        assert runs.lookup("head", request) == {"status": "failed", "returncode": 1, "tail": "boom"}
        assert [(side.revision, side.commit) for side in ctx.cached] == [("head", ctx.head_sha)]
