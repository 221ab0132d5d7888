"""What the App leaves on a commit when GitHub fails it (issue 18): statuses and check runs never
disagree, and no check run stays in progress for ever, whether its updates keep failing, its
create's answer was lost, or the worker that made it was killed."""

from __future__ import annotations

import re

from tests.bot.app.world import REPO, AppWorld


def test_when_check_run_updates_keep_failing_no_status_says_success(world: AppWorld) -> None:
    world.github.faults.only = re.compile(r"PATCH .*/check-runs/")
    world.github.faults.fail_next(10_000, status=502)
    world.deliver_push("opened")  # a clean PR: its report says success
    world.drain()
    statuses = world.github.repo(REPO).latest_statuses(world.head)
    assert statuses, "nothing says what happened"
    assert {s.state for s in statuses.values()} == {"error"}
    assert "gradgate" in statuses and "gradgate/protected" in statuses
    runs = world.check_runs(world.head)
    assert "success" not in runs.values()


def _left_in_progress(world: AppWorld, sha: str) -> list[str]:
    every = world.github.repo(REPO).check_runs.values()
    return sorted(r.name for r in every if r.sha == sha and r.status != "completed")


def test_a_check_run_whose_create_answer_was_lost_is_concluded(world: AppWorld) -> None:
    """GitHub made the check run and answered 502; the retried create made a second one, and
    gradgate completed only the one it knew."""
    world.github.faults.only = re.compile(r"POST .*/check-runs$")
    world.github.faults.fail_next(1, status=502, after=True)
    world.deliver_push("opened")
    world.drain()
    runs = [r for r in world.github.repo(REPO).check_runs.values() if r.sha == world.head]
    assert len([r for r in runs if r.name == "gradgate"]) == 2  # the lost answer's twin
    assert _left_in_progress(world, world.head) == []
    assert {r.conclusion for r in runs if r.name == "gradgate"} == {"success"}


def test_check_runs_of_a_worker_killed_mid_job_are_concluded(world: AppWorld) -> None:
    import os
    import signal

    from tests.bot.app.world import EDITED

    world.push(EDITED)
    killed: list[int] = []
    first = world.start_worker()

    def kill_once_marked(method: str, path: str) -> None:
        if method == "POST" and path.endswith("/comments") and not killed:
            os.kill(first.pid, signal.SIGKILL)  # its check runs are in progress on GitHub
            killed.append(first.pid)

    world.github.hooks.append(kill_once_marked)
    world.deliver_push()
    world.wait_until(lambda: bool(killed))
    first.wait(10)
    world.workers.remove(first)
    assert _left_in_progress(world, world.head)

    world.start_worker()  # its reaper runs the job again
    world.wait_until(world.idle)
    world.wait_until(lambda: world.check_runs(world.head)["gradgate"] != "in_progress")
    assert _left_in_progress(world, world.head) == []
    assert world.check_runs(world.head)["gradgate/protected"] == "failure"


def test_a_killed_jobs_check_runs_on_a_head_pushed_over_are_concluded_as_superseded(
    world: AppWorld,
) -> None:
    import os
    import signal

    from tests.bot.app.world import EDITED, TRAIN

    older = world.push(EDITED)
    killed: list[int] = []
    first = world.start_worker()

    def kill_once_marked(method: str, path: str) -> None:
        if method == "POST" and path.endswith("/comments") and not killed:
            os.kill(first.pid, signal.SIGKILL)
            killed.append(first.pid)

    world.github.hooks.append(kill_once_marked)
    world.deliver_push()
    world.wait_until(lambda: bool(killed))
    first.wait(10)
    world.workers.remove(first)
    newer = world.push(TRAIN)
    world.deliver_push()

    world.start_worker()  # the old job runs again, finds itself superseded; the new one reports
    world.wait_until(world.idle)
    world.wait_until(lambda: world.check_runs(newer).get("gradgate") not in (None, "in_progress"))
    assert _left_in_progress(world, older) == []
    assert world.check_runs(older)["gradgate"] == "cancelled"
