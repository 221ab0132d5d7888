"""The App with the result cache on, end to end: real signed deliveries, a worker, the fake
GitHub, a tiny torch model. The first run of a PR writes its model results into the queue's
own store; a /recheck of the unchanged PR reads them back, and its comment says so, with the
same verdict. On Redis, a worker on another machine reads them, and damaged entries are
computed again."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from gradgate.bot.app.cache import ENTRIES, QueueStore
from gradgate.bot.app.github import app_forge
from gradgate.bot.app.queue import Queues, sqlite_storage
from gradgate.bot.app.work import Worker
from huey.storage import RedisStorage

from tests.bot.app.world import FAST, NUMBER, REPO, AppWorld

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


@pytest.mark.timeout(300)
@pytest.mark.parametrize("settings", [{"redis_url": True}], indirect=True, ids=["redis"])
def test_on_redis_a_worker_elsewhere_reads_what_another_wrote_and_a_damaged_entry_is_recomputed(
    redis_url: str, world: AppWorld, tmp_path: Path
) -> None:
    """Two workers with their own folders (two machines) and one real Redis: the second reads
    the results the first wrote; entries cut short in Redis are not trusted, and the next run
    computes them again and stores them whole. (``redis_url``, asked here, starts the suite's
    redis-server before ``no_bwrap`` cuts PATH down to git.)"""
    elsewhere = dataclasses.replace(world.settings, data_dir=tmp_path / "another-machine")
    second = Worker(Queues(elsewhere), app_forge(elsewhere, retry=FAST))
    head = world.push(MODEL.format(width=16), path="model.py")
    world.deliver_push(author="alice")
    world.drain()
    [first] = world.report_comments()
    assert "from the cache" not in first
    entries = RedisStorage(ENTRIES, url=world.settings.redis_url)
    written = {str(k): bytes(v) for k, v in entries.result_items().items()}
    assert written  # the first worker wrote its results to Redis

    world.comment("/recheck", author="olivia")
    world.drain(worker=second)
    [again] = world.report_comments()
    assert world.check_runs(head)["gradgate/gradient"] == "success"
    assert "♻️ `gradient` from the cache: base (computed at" in again

    for key, value in written.items():  # every entry cut short, as a full disk would leave it
        entries.put_data(key, value[: len(value) // 2])
    world.comment("/recheck", author="olivia")
    world.drain(worker=second)
    [recomputed] = world.report_comments()
    assert "from the cache" not in recomputed
    assert world.check_runs(head)["gradgate/gradient"] == "success"

    world.comment("/recheck", author="olivia")
    world.drain()
    [last] = world.report_comments()
    assert "♻️ `gradient` from the cache: base (computed at" in last  # stored whole again
