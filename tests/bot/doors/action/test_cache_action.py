"""The Action with the result cache on, end to end: the pull request's run keeps its model
results in the runner's cache folder (what the workflow's actions/cache step restores and
saves), and a re-run of the unchanged PR reads them back, saying so in its comment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.bot.doors.action.world import NUMBER, REPO, World

POLICY = """\
model:
  entrypoint: "model.py:build"
always: [gradient]
"""
MODEL = """\
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, {width}), nn.ReLU(), nn.Linear({width}, 2)), torch.randn(3, 4)
"""


@pytest.mark.timeout(300)
def test_a_rerun_reads_what_the_first_run_saved(world: World) -> None:
    repo = world.repo
    repo.checkout("main")
    repo.write(".gradgate.yml", POLICY)
    repo.write("model.py", MODEL.format(width=8))
    base = repo.commit("a model")
    repo.checkout("pr")
    repo.git("merge", "-q", "main")
    repo.write("model.py", MODEL.format(width=16))
    head = repo.commit("a wider model")
    pull = world.github.repo(REPO).pulls[NUMBER]
    pull.base_sha, pull.head_sha = base, head

    assert world.pull_request("opened") == 0
    [first] = world.report_comments()
    assert "from the cache" not in first
    folder = Path(os.environ["XDG_CACHE_HOME"]) / "gradgate" / "results"
    assert any(folder.iterdir())  # what actions/cache saves after the job

    assert world.pull_request("reopened") == 0  # the Re-run button, or a /recheck
    [again] = world.report_comments()
    assert "gradgate passed" in again
    assert f"♻️ `gradient` from the cache: base (computed at {base[:12]})" in again
