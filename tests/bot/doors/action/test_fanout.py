"""The fan-out: `plan` and `check` stages with no token, then `publish` from the same
pull_request run. The trusted side (`workflow_run`, gradgate-publish.yml) is in
action/test_trust.py."""

from __future__ import annotations

import json
from pathlib import Path

from gradgate.bot.github.results import CHECK_FILE, PLAN_FILE

from tests.bot.doors.action.world import NUMBER, REPO, TRAIN, World, read_json
from tests.fakegithub import payloads

EDITED = TRAIN.replace("runs/v3", "runs/v4")


def _plan_and_check(world: World, results: Path) -> None:
    world.token = ""  # the fork's pull_request run: no token that can write
    output = world.tmp / "github_output"
    world.env["GITHUB_OUTPUT"] = str(output)
    assert world.pull_request("synchronize", "--stage", "plan", "--results", str(results)) == 0
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert outputs["run"] == "true"
    for job in json.loads(outputs["matrix"])["include"]:
        world.pull_request(
            "synchronize", "--stage", "check", "--check", job["check"], "--results", str(results)
        )


def test_plan_and_check_stages_need_no_token_and_write_results(world: World) -> None:
    world.push(EDITED)
    results = world.tmp / "results"

    _plan_and_check(world, results)

    assert world.github.log == []  # not one API call
    record = read_json(results / PLAN_FILE)
    assert (record["pr"], record["head_sha"]) == (NUMBER, world.head)
    check = read_json(results / CHECK_FILE.format(name="protected"))
    assert check["verdict"] == "failure" and check["head_sha"] == world.head


def test_a_failing_check_fails_its_job_so_recheck_can_rerun_it(world: World) -> None:
    world.push(EDITED)
    world.token = ""
    code = world.pull_request(
        "synchronize", "--stage", "check", "--check", "protected", "--results", str(world.tmp / "r")
    )

    assert code == 1


def test_a_check_job_that_left_no_result_is_an_error(world: World) -> None:
    results = world.tmp / "results"
    _plan_and_check(world, results)
    (results / CHECK_FILE.format(name="protected")).unlink()  # its job crashed
    world.token = world.github.token()

    assert world.pull_request("synchronize", "--stage", "publish", "--results", str(results)) == 0

    assert world.statuses(world.head)["gradgate"] == "error"
    assert world.statuses(world.head)["gradgate/protected"] == "error"


def test_a_cancelled_run_publishes_nothing(world: World) -> None:
    event = payloads.workflow_run(
        repo=REPO, run_id=559, head=world.head, head_branch="pr", conclusion="cancelled"
    )

    assert world.action("workflow_run", event, "--stage", "publish") == 0

    assert world.github.log == []
