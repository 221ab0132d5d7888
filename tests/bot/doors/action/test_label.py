"""Issue 17 on the Action: the `ok-to-test` label approves a fork's head, as `/ok-to-test <sha>`
does and as on the App. gradgate-publish.yml's gate, check and publish stages on a real
`pull_request_target` `labeled` payload, against the fake GitHub (trust_world)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from gradgate.bot.github.workflows import workflows

from tests.bot.doors.action.trust_world import (
    ACTION,
    FORK,
    WAITING,
    check_and_publish,
    fork_run,
    gate_and_publish,
    gate_outputs,
    run_trusted,
    waiting_fork,
    walk_publish,
)  # fmt: skip
from tests.bot.doors.action.world import NUMBER, REPO, World
from tests.fakegithub import payloads


@pytest.fixture
def waiting(world: World) -> World:
    """A fork's PR whose gradient check waits for approval (its gate ran on workflow_run)."""
    for login in ("olivia", "tess"):  # GitHub knows who labels
        world.github.user(login)
    world.github.user("github-actions[bot]", type="Bot")
    world.github.repo(REPO).collaborators["tess"] = "triage"  # may label, may not write
    waiting_fork(world)
    assert _gradient(world) == ("in_progress", True)
    return world


def _label(world: World, label: str, *, by: str, head: str | None = None) -> dict[str, Any]:
    return payloads.labeled(
        repo=REPO, number=NUMBER, head=head or world.head, base=world.base, author="mallory",
        label=label, by=by, head_repo=FORK,
    )  # fmt: skip


def _gate(world: World, event: dict[str, Any], results: Path) -> dict[str, str]:
    assert run_trusted(world, "gate", "pull_request_target", event, "--results", str(results)) == 0
    return gate_outputs(world)


def _gradient(world: World, sha: str | None = None) -> tuple[str, bool]:
    """The gradient check run's status, and whether it says it waits for approval."""
    run = world.github.repo(REPO).latest_check_runs(sha or world.head)["gradgate/gradient"]
    return run.status, WAITING in (run.title or "")


def test_the_ok_to_test_label_by_a_writer_runs_the_code_checks_of_the_labeled_head(
    waiting: World,
) -> None:
    world, results = waiting, waiting.tmp / "labeled"
    event = _label(world, "ok-to-test", by="olivia")

    gate = _gate(world, event, results)

    assert gate["run"] == "true" and gate["head"] == world.head
    (job,) = json.loads(gate["matrix"])["include"]
    assert job == {"check": "gradient", "runs_on": ["self-hosted", "gpu"]}  # the base's runners
    check_and_publish(world, "pull_request_target", event, results)
    assert _gradient(world) == ("completed", False)
    assert world.github.repo(REPO).latest_check_runs(world.head)["gradgate"].status == "completed"


@pytest.mark.parametrize("by", ["tess", "mallory", "github-actions[bot]"])
def test_the_label_put_on_by_someone_without_write_access_approves_nothing(
    waiting: World, by: str
) -> None:
    gate = _gate(waiting, _label(waiting, "ok-to-test", by=by), waiting.tmp / "labeled")

    assert (gate["publish"], gate["run"]) == ("false", "false")
    assert _gradient(waiting) == ("in_progress", True)  # still waiting for approval


def test_another_label_approves_nothing(waiting: World) -> None:
    gate = _gate(waiting, _label(waiting, "bug", by="olivia"), waiting.tmp / "labeled")

    assert (gate["publish"], gate["run"]) == ("false", "false")
    assert _gradient(waiting) == ("in_progress", True)


def test_the_label_approved_one_head_and_a_later_push_waits_again(waiting: World) -> None:
    world = waiting
    labeled = world.head
    event = _label(world, "ok-to-test", by="olivia")
    assert _gate(world, event, world.tmp / "labeled")["run"] == "true"
    check_and_publish(world, "pull_request_target", event, world.tmp / "labeled")
    assert _gradient(world, labeled)[0] == "completed"

    world.repo.write("model.py", "def build():\n    return 666\n")
    world.github.repo(REPO).pulls[NUMBER].head_sha = pushed = world.repo.commit("after approval")
    uploaded = world.tmp / "uploaded-2"
    fork_run(world, uploaded)
    gate_and_publish(world, uploaded)  # the label is still on the PR: it approved `labeled`

    assert gate_outputs(world)["run"] == "false"
    assert _gradient(world, pushed) == ("in_progress", True)
    # ... and a late delivery of the label's event approves nothing either: its head moved.
    late = _gate(world, _label(world, "ok-to-test", by="olivia", head=labeled), world.tmp / "l")
    assert (late["publish"], late["run"]) == ("false", "false")
    assert _gradient(world, pushed) == ("in_progress", True)


def test_the_trusted_workflow_runs_its_gate_for_the_ok_to_test_label_only(
    waiting: World,
) -> None:
    world = waiting
    text = workflows(action=ACTION)["gradgate-publish.yml"]
    assert yaml.safe_load(text)[True]["pull_request_target"] == {"types": ["labeled"]}
    event = _label(world, "ok-to-test", by="olivia")
    _gate(world, event, world.tmp / "labeled")

    runs = walk_publish(world, event, "pull_request_target")
    assert set(runs) == {"gate", "check", "publish"}
    assert runs["check"].runs_on == ["self-hosted", "gpu"]
    assert runs["check"].permissions == {"contents": "read"}
    assert runs["gate"].checkouts == [{"fetch-depth": 0, "persist-credentials": False}]
    assert "gate" not in walk_publish(
        world, _label(world, "bug", by="olivia"), "pull_request_target"
    )
