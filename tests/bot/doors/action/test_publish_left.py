"""Issue 18 on the Action's trusted side: a publish run with nothing to publish leaves the
head's checks as they are, and publishing concludes gradgate's own check runs left in progress."""

from __future__ import annotations

from tests.bot.doors.action.trust_world import (
    fork_run,
    gate_and_publish,
    run_event,
)  # fmt: skip
from tests.bot.doors.action.world import REPO, World

# -- issue 18: a publish run with nothing to publish, and check runs left in progress ----------


def test_a_title_edit_run_without_results_leaves_the_heads_checks_as_they_are(
    world: World,
) -> None:
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    gate_and_publish(world, uploaded)
    before = {n: (r.id, r.conclusion) for n, r in world.github.repo(REPO).latest_check_runs(
        world.head).items()}  # fmt: skip
    assert before["gradgate"][1] == "success"
    empty = world.tmp / "nothing"
    empty.mkdir()

    assert gate_and_publish(world, empty, run_event(world, conclusion="success")) == 0

    after = {n: (r.id, r.conclusion) for n, r in world.github.repo(REPO).latest_check_runs(
        world.head).items()}  # fmt: skip
    assert after == before
    assert world.statuses(world.head) == {}


def test_a_failed_run_without_results_is_an_error_on_its_head(world: World) -> None:
    empty = world.tmp / "nothing"
    empty.mkdir()

    assert gate_and_publish(world, empty, run_event(world, conclusion="failure")) == 2

    run = world.github.repo(REPO).latest_check_runs(world.head)["gradgate"]
    assert run.conclusion == "failure" and "could not decide" in str(run.title)


def test_publishing_concludes_its_own_check_runs_left_in_progress(world: World) -> None:
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    token = world.github.token(checks=True)
    # A killed job, and a create whose answer was lost and was retried: three left running.
    repo = world.github.repo(REPO)
    for name in ("gradgate", "gradgate", "gradgate/protected"):
        _create_in_progress(world, token, name)

    gate_and_publish(world, uploaded)

    left = [r for r in repo.check_runs.values() if r.sha == world.head and r.status != "completed"]
    assert left == []
    assert repo.latest_check_runs(world.head)["gradgate"].conclusion == "success"


def _create_in_progress(world: World, token: str, name: str) -> None:
    import requests

    answer = requests.post(
        f"{world.github.url}/repos/{REPO}/check-runs",
        json={"name": name, "head_sha": world.head, "status": "in_progress"},
        headers={"Authorization": f"token {token}"},
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
