"""An approval of a fork's head stays valid for that head across re-runs (issue 17, a defect
left): GitHub's Re-run buttons, `/recheck` and `/recheck all` on an approved head run its code
again instead of showing it as waiting for approval; a new push still waits. Real signed
deliveries to a real server, a worker, the fake GitHub."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.bot.app.world import REPO, AppWorld, fork_push

WAITING = "waiting for approval to run code from a fork"
RERUNS: dict[str, Callable[[AppWorld], httpx.Response]] = {
    "check_run": lambda w: w.rerun("check_run", by="olivia"),
    "check_suite": lambda w: w.rerun("check_suite", by="olivia"),
    "/recheck": lambda w: w.comment("/recheck", author="olivia"),
    "/recheck all": lambda w: w.comment("/recheck all", author="olivia"),
}


# Every pull request here comes from a fork: its code waits for approval.
pytestmark = pytest.mark.usefixtures("fork_world")


def _fork_push(world: AppWorld, width: int) -> str:
    sha = fork_push(world, width)
    world.drain()
    return sha


def _gradient(world: AppWorld, sha: str) -> tuple[str, bool]:
    """The gradient check run's state on ``sha``, and whether it says it waits for approval."""
    run = world.github.repo(REPO).latest_check_runs(sha)["gradgate/gradient"]
    return run.conclusion or run.status, WAITING in (run.title or "")


def _shown(world: AppWorld) -> str:
    [comment] = world.report_comments()
    return comment


@pytest.mark.parametrize("how", list(RERUNS))
def test_a_re_run_of_a_head_the_label_approved_runs_its_code_again(
    world: AppWorld, how: str
) -> None:
    head = _fork_push(world, 16)
    assert _gradient(world, head) == ("in_progress", True)
    assert world.label("ok-to-test", by="olivia").status_code == 202
    world.drain()
    ran = _gradient(world, head)
    assert ran[0] not in ("in_progress", "queued") and not ran[1]
    posted = len(world.github.requests("POST", "/check-runs$"))

    assert RERUNS[how](world).status_code == 202
    world.drain()

    assert _gradient(world, head) == ran  # not "waiting for approval" again
    assert len(world.github.requests("POST", "/check-runs$")) > posted  # it did re-run
    assert WAITING not in _shown(world)


def test_approving_another_commit_keeps_the_heads_approval(world: AppWorld) -> None:
    """`/ok-to-test <sha>` may name a commit that is not the head (it runs should that commit
    become the head); that must not take the approval away from the head approved before."""
    older = _fork_push(world, 16)
    head = _fork_push(world, 32)
    world.comment(f"/ok-to-test {head}", author="olivia")
    world.drain()
    ran = _gradient(world, head)
    assert ran[0] not in ("in_progress", "queued")

    world.comment(f"/ok-to-test {older}", author="olivia")  # another commit: not the head
    world.drain()
    assert world.rerun("check_run", by="olivia").status_code == 202
    world.drain()

    assert _gradient(world, head) == ran
    assert WAITING not in _shown(world)


def test_a_new_push_after_an_approval_still_waits_through_a_re_run(world: AppWorld) -> None:
    approved = _fork_push(world, 16)
    world.comment(f"/ok-to-test {approved}", author="olivia")
    world.drain()
    assert _gradient(world, approved)[0] not in ("in_progress", "queued")

    pushed = _fork_push(world, 666)
    assert _gradient(world, pushed) == ("in_progress", True)
    for how in ("check_run", "check_suite", "/recheck"):
        assert RERUNS[how](world).status_code == 202
        world.drain()
        assert _gradient(world, pushed) == ("in_progress", True)  # never run unapproved
    assert WAITING in _shown(world)
