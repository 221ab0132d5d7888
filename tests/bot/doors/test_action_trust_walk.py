"""gradgate-publish.yml walked job by job (issue 17), with the outputs a real gate job gave:
which runner, token and checkout each job gets for a fork's pull request, before and after
`/ok-to-test`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from gradgate.bot.github.workflows import workflows

from tests.bot.doors.action_world import NUMBER, REPO, World, make_world
from tests.bot.doors.trust_world import (
    ACTION,
    fork,
    fork_run,
    gate_and_publish,
    gate_outputs,
    run_event,
    run_trusted,
    use_code_policy,
)  # fmt: skip
from tests.bot.github.workflow_walk import JobRun, walk
from tests.fakegithub import FakeGitHub, payloads
from tests.gitrepo import GitRepo


@pytest.fixture
def world(
    repo: GitRepo, github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[World]:
    yield from make_world(repo, github, tmp_path, monkeypatch)


# -- gradgate-publish.yml walked job by job, with a real gate's outputs ------------------------


def _walk_publish(world: World, event: dict[str, Any], name: str) -> list[JobRun]:
    text = workflows(action=ACTION)["gradgate-publish.yml"]
    contexts = {"github": {"event_name": name, "repository": REPO, "event": event}}
    return walk(yaml.safe_load(text), contexts, {"gate": gate_outputs(world)}, action=ACTION)


def test_the_trusted_workflow_gives_a_forks_code_no_runner_before_approval(world: World) -> None:
    use_code_policy(world)
    fork(world)
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    event = run_event(world, conclusion="success")
    gate_and_publish(world, uploaded, event)

    runs = {r.job: r for r in _walk_publish(world, event, "workflow_run")}

    assert set(runs) == {"gate", "publish"}  # no `check` job: nothing runs the fork's code
    gate, publish = runs["gate"], runs["publish"]
    assert gate.runs_on == publish.runs_on == "ubuntu-latest"
    assert gate.permissions == {"contents": "read", "actions": "read", "pull-requests": "read"}
    assert gate.checkouts == [{"fetch-depth": 0, "persist-credentials": False}]  # default branch
    assert publish.checkouts == []  # the job with a token that writes has no git at all
    assert "write" in publish.permissions.values()


def test_after_approval_only_the_approved_head_goes_to_the_self_hosted_runner(
    world: World,
) -> None:
    use_code_policy(world)
    fork(world)
    text = f"/ok-to-test {world.head}"
    made = world.github.add_comment(REPO, NUMBER, text, author="olivia")
    event = payloads.issue_comment(
        "created", repo=REPO, number=NUMBER, comment_id=made.id, body=text, author="olivia"
    )
    run_trusted(world, "gate", "issue_comment", event, "--results", str(world.tmp / "t"))

    runs = _walk_publish(world, event, "issue_comment")

    (check,) = [r for r in runs if r.job == "check"]
    assert check.runs_on == ["self-hosted", "gpu"]  # the base's `runners:`
    assert check.permissions == {"contents": "read"}
    assert check.checkouts == [{"fetch-depth": 0, "persist-credentials": False}]
    (step,) = [s for s in check.steps if s.uses == ACTION]
    assert (step.with_["stage"], step.with_["head"]) == ("check", world.head)
    assert {r.job for r in runs} == {"gate", "check", "publish"}  # not `recheck`
