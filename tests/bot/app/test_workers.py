"""`gradgate worker` processes: one killed with -9 mid-job, and several sharing a real Redis.

Whatever happens to a worker, every job ends published and each pull request has exactly one
report comment."""

from __future__ import annotations

import os
import signal

import httpx
import pytest

from tests.bot.app.world import BOT, EDITED, NUMBER, REPO, AppWorld
from tests.fakegithub import payloads


@pytest.mark.parametrize("settings", [{"lease_s": 1.0}], indirect=True, ids=["lease-1s"])
def test_a_worker_killed_mid_job_loses_nothing_and_leaves_one_comment(world: AppWorld) -> None:
    world.push(EDITED)
    killed: list[int] = []
    first = world.start_worker()

    def kill_while_publishing(method: str, path: str) -> None:
        if method == "POST" and path.endswith("/comments") and not killed:
            os.kill(first.pid, signal.SIGKILL)  # the comment is still made: GitHub got it
            killed.append(first.pid)

    world.github.hooks.append(kill_while_publishing)
    world.deliver_push()
    world.wait_until(lambda: bool(killed))
    first.wait(10)
    world.workers.remove(first)
    assert world.check_runs(world.head)["gradgate"] == "in_progress"  # half published

    world.start_worker()  # its reaper finds the job whose lease lapsed
    world.wait_until(world.idle)
    world.wait_until(lambda: world.check_runs(world.head)["gradgate"] != "in_progress")
    [comment] = world.report_comments()
    assert "gradgate failed" in comment
    assert world.check_runs(world.head)["gradgate/protected"] == "failure"


# Nothing is killed here: a lease of 1 s lapsed when a loaded machine starved the renewing
# thread, and another worker took the job over (the test then failed on a busy machine).
@pytest.mark.parametrize(
    "settings", [{"redis_url": True, "lease_s": 30.0}], indirect=True, ids=["redis"]
)
def test_several_workers_on_redis_run_every_job_once_and_never_duplicate_a_comment(
    world: AppWorld,
) -> None:
    others = (8, 9)
    for number in others:  # two more pull requests with the same head
        world.origin.git("update-ref", f"refs/pull/{number}/head", world.head)
        world.github.open_pull(REPO, number, head=world.head, base=world.base, author="alice",
                               head_ref="pr")  # fmt: skip
    for _ in range(3):
        world.start_worker()
    world.deliver_push("opened")
    world.deliver_push("reopened")  # the same PR and head, twice: published under one lock
    for number in others:
        assert _open(world, number).status_code == 202

    world.wait_until(world.idle)
    for number in (NUMBER, *others):
        mine = [
            c
            for c in world.github.comments(REPO, number, by=BOT)
            if c.body.startswith("<!-- gradgate:report")
        ]
        assert len(mine) == 1, number


def _open(world: AppWorld, number: int) -> httpx.Response:
    payload = payloads.pull_request(
        "opened", repo=REPO, number=number, head=world.head, base=world.base, author="alice",
        head_ref="pr",
    )  # fmt: skip
    return world.live.deliver("pull_request", world._for_app(payload))
