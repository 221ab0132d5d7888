"""An approval of a fork's head stays valid for that head across re-runs of the fork's own run
(issue 17, a defect left): after the `ok-to-test` label (or `/ok-to-test <sha>`) ran the code
checks, GitHub's "Re-run jobs" of the fork's `pull_request` run (or a `/recheck`, which does the
same) makes gradgate-publish.yml gate that head again on `workflow_run`. It runs the approved
head's code checks again instead of showing it waiting for approval; a new push still waits, and
nothing but the trusted side's own record of an approval counts. gradgate-publish.yml's gate,
check and publish stages on real payloads, against the fake GitHub (trust_world)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gradgate.bot.github.client import Connection, GitHubClient
from gradgate.bot.github.ports import Status

from tests.bot.doors.action.trust_world import (
    FORK,
    WAITING,
    approval,
    check_and_publish,
    fork_run,
    gate_outputs,
    run_event,
    run_trusted,
    waiting_fork,
)  # fmt: skip
from tests.bot.doors.action.world import NUMBER, REPO, World
from tests.fakegithub import payloads


@pytest.fixture
def waiting(world: World) -> World:
    """A fork's PR whose gradient check waits for approval (its gate ran on workflow_run)."""
    world.github.user("olivia")
    waiting_fork(world)
    assert _gradient(world) == ("in_progress", True)
    return world


def _gradient(world: World, sha: str | None = None) -> tuple[str, bool]:
    """The gradient check run's state, and whether it says it waits for approval."""
    run = world.github.repo(REPO).latest_check_runs(sha or world.head)["gradgate/gradient"]
    return run.conclusion or run.status, WAITING in (run.title or "")


def _label(world: World) -> dict[str, Any]:
    return payloads.labeled(
        repo=REPO, number=NUMBER, head=world.head, base=world.base, author="mallory",
        label="ok-to-test", by="olivia", head_repo=FORK,
    )  # fmt: skip


def _approve(world: World, how: str) -> None:
    """A writer approves the head; gradgate-publish.yml's gate, check and publish jobs run."""
    name, event = (
        ("pull_request_target", _label(world))
        if how == "label"
        else ("issue_comment", approval(world, f"/ok-to-test {world.head}"))
    )
    results = world.tmp / f"approved-{how}"
    assert run_trusted(world, "gate", name, event, "--results", str(results)) == 0
    assert gate_outputs(world)["run"] == "true"
    check_and_publish(world, name, event, results)


def _rerun(world: World, attempt: int) -> dict[str, str]:
    """The fork's own run, re-run ("Re-run jobs", or `/recheck`): the same head, a new attempt;
    then gradgate-publish.yml on its workflow_run: the gate, and the jobs it asks for."""
    uploaded = world.tmp / f"uploaded-{attempt}"
    fork_run(world, uploaded)
    event = run_event(world, conclusion="success", run_attempt=attempt)
    results = world.tmp / f"rerun-{attempt}"
    args = ("--uploaded", str(uploaded), "--results", str(results))
    assert run_trusted(world, "gate", "workflow_run", event, *args) == 0
    gate = gate_outputs(world)
    if gate.get("run") == "true":
        check_and_publish(world, "workflow_run", event, results)
    elif gate.get("publish") == "true":
        world.action("workflow_run", event, "--stage", "publish", "--results", str(results))
    return gate


@pytest.mark.parametrize("how", ["label", "comment"])
def test_a_re_run_of_an_approved_forks_run_runs_its_code_checks_again(
    waiting: World, how: str
) -> None:
    world = waiting
    _approve(world, how)
    verdict = _gradient(world)
    assert verdict[0] != "in_progress" and not verdict[1]

    for attempt in (2, 3):  # and a re-run of the re-run
        gate = _rerun(world, attempt)

        assert gate["run"] == "true"  # the approved head's code checks run again, trusted
        assert json.loads(gate["matrix"])["include"][0]["check"] == "gradient"
        assert _gradient(world) == verdict  # never "waiting for approval" again
        assert world.github.repo(REPO).latest_check_runs(world.head)["gradgate"].status == (
            "completed"
        )


def test_the_approval_is_recorded_on_the_approved_commit_only(waiting: World) -> None:
    world = waiting
    approved = world.head
    _approve(world, "label")
    [status] = world.github.repo(REPO).latest_statuses(approved).values()
    assert (status.context, status.state, status.creator) == (
        "gradgate/ok-to-test", "success", "github-actions[bot]",
    )  # fmt: skip
    assert "olivia" in (status.description or "")

    world.repo.write("model.py", "def build():\n    return 666\n")
    world.github.repo(REPO).pulls[NUMBER].head_sha = pushed = world.repo.commit("after approval")
    gate = _rerun(world, 2)  # the label is still on the PR: it approved `approved` only

    assert gate["run"] == "false"
    assert _gradient(world, pushed) == ("in_progress", True)
    assert world.github.repo(REPO).latest_statuses(pushed) == {}


@pytest.mark.parametrize("creator", ["mallory", "olivia"])
def test_a_status_not_made_by_the_trusted_workflow_approves_nothing(
    waiting: World, creator: str
) -> None:
    """Only the trusted workflow's token (github-actions[bot]) records approvals: the same
    status made by anyone else, even someone with write access, is not one."""
    world = waiting
    forged = GitHubClient(Connection(world.github.url, world.github.token(creator), REPO))
    forged.set_status(world.head, Status("gradgate/ok-to-test", "success", "olivia approved"))

    gate = _rerun(world, 2)

    assert gate["run"] == "false"
    assert _gradient(world) == ("in_progress", True)


def test_without_an_approval_a_re_run_still_waits(waiting: World, tmp_path: Path) -> None:
    gate = _rerun(waiting, 2)

    assert (gate["publish"], gate["run"]) == ("true", "false")
    assert _gradient(waiting) == ("in_progress", True)
