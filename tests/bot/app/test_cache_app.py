"""The App with the result cache on, end to end: real signed deliveries, a worker, the fake
GitHub, a tiny torch model. The first run of a PR writes its model results into the queue's
own store; a /recheck of the unchanged PR reads them back, and its comment says so, with the
same verdict."""

from __future__ import annotations

import pytest
from gradgate.bot.app.cache import QueueStore
from gradgate.bot.app.queue import sqlite_storage

from tests.bot.app.world import NUMBER, REPO, AppWorld

POLICY = """\
sandbox: auto
model:
  entrypoint: "model.py:build"
zones:
  - name: model
    paths: ["model.py"]
    checks: [gradient]
"""
MODEL = """\
import torch
import torch.nn as nn


def build():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, {width}), nn.ReLU(), nn.Linear({width}, 2)), torch.randn(3, 4)
"""


@pytest.fixture
def policy() -> str:
    return POLICY


@pytest.fixture(autouse=True)
def _base_has_a_model(no_bwrap: None, world: AppWorld) -> None:
    origin = world.origin
    origin.write("model.py", MODEL.format(width=8))
    world.github.repo(REPO).pulls[NUMBER].base_sha = origin.commit("a model")
    origin.checkout("pr")
    origin.git("merge", "-q", "main")


@pytest.mark.timeout(300)
def test_a_recheck_reads_what_the_first_run_wrote_to_the_queue_store(world: AppWorld) -> None:
    head = world.push(MODEL.format(width=16), path="model.py")
    world.deliver_push(author="alice")
    world.drain()
    [first] = world.report_comments()
    assert world.check_runs(head)["gradgate/gradient"] == "success"
    assert "from the cache" not in first
    store = QueueStore(lambda namespace: sqlite_storage(namespace, str(world.settings.queue_db)))
    assert store.size() > 0  # the worker's runner wrote its results there

    world.comment("/recheck", author="olivia")
    world.drain()
    [again] = world.report_comments()
    assert world.check_runs(head)["gradgate/gradient"] == "success"
    assert "♻️ `gradient` from the cache: base (computed at" in again
    assert f"head (computed at {head[:12]})" in again
