"""gradgate-publish.yml walked job by job (issue 17), with the outputs a real gate job gave:
which runner, token and checkout each job gets for a fork's pull request, before and after
`/ok-to-test`."""

from __future__ import annotations

from tests.bot.doors.action.trust_world import (
    ACTION,
    approval,
    fork,
    run_trusted,
    use_code_policy,
    waiting_fork,
    walk_publish,
)  # fmt: skip
from tests.bot.doors.action.world import World

# -- gradgate-publish.yml walked job by job, with a real gate's outputs ------------------------


def test_the_trusted_workflow_gives_a_forks_code_no_runner_before_approval(world: World) -> None:
    event = waiting_fork(world, conclusion="success")

    runs = walk_publish(world, event, "workflow_run")

    assert set(runs) == {"gate", "publish"}  # no `check` job: nothing runs the fork's code
    gate, publish = runs["gate"], runs["publish"]
    assert gate.runs_on == publish.runs_on == "ubuntu-latest"
    assert gate.permissions == {
        "contents": "read", "actions": "read", "pull-requests": "read", "statuses": "read"
    }  # fmt: skip
    assert gate.checkouts == [{"fetch-depth": 0, "persist-credentials": False}]  # default branch
    assert publish.checkouts == []  # the job with a token that writes has no git at all
    assert "write" in publish.permissions.values()


def test_after_approval_only_the_approved_head_goes_to_the_self_hosted_runner(
    world: World,
) -> None:
    use_code_policy(world)
    fork(world)
    event = approval(world, f"/ok-to-test {world.head}")
    run_trusted(world, "gate", "issue_comment", event, "--results", str(world.tmp / "t"))

    runs = walk_publish(world, event, "issue_comment")

    check = runs["check"]
    assert check.runs_on == ["self-hosted", "gpu"]  # the base's `runners:`
    assert check.permissions == {"contents": "read"}
    assert check.checkouts == [{"fetch-depth": 0, "persist-credentials": False}]
    (step,) = [s for s in check.steps if s.uses == ACTION]
    assert (step.with_["stage"], step.with_["head"]) == ("check", world.head)
    assert set(runs) == {"gate", "check", "publish"}  # not `recheck`
