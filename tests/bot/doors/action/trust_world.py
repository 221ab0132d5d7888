"""The world of the trusted-side tests (issue 17): the fork's own `pull_request` run (plan and
check, no token) writes what it likes; gradgate-publish.yml's gate, check and publish jobs run
in a checkout of the default branch that fetches the PR's head as git objects, against the fake
GitHub."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml
from gradgate.bot.github.workflows import workflows

from tests.bot.doors.action.world import NUMBER, REPO, TRAIN, World
from tests.bot.github.workflow_walk import JobRun, walk
from tests.fakegithub import payloads

EDITED = TRAIN.replace("runs/v3", "runs/v4")  # edits a `# NO_REFAC` line: protected fails
FORK = "mallory/model"
# The base's config: `protected` everywhere (built in), the gradient check on model.py, on a
# self-hosted GPU runner.
CODE_POLICY = """\
zones:
  - name: model
    paths: ["model.py"]
    checks: [gradient]
runners:
  gradient: [self-hosted, gpu]
"""
WAITING = "waiting for approval to run code from a fork"
ACTION = "acme/gradgate@" + "0123456789abcdef" * 2 + "01234567"


def fork(world: World) -> None:
    world.github.repo(REPO).pulls[NUMBER].head_repo = FORK
    world.github.user("mallory")
    world.github.repo(REPO).pulls[NUMBER].author = "mallory"


def fork_run(world: World, uploaded: Path) -> None:
    """The fork's own `pull_request` run: plan, then every check job, with no token."""
    token, world.token = world.token, ""
    world.env.pop("GITHUB_RUN_ID", None)
    output = world.tmp / "fork_output"
    world.env["GITHUB_OUTPUT"] = str(output)
    world.pull_request("synchronize", "--stage", "plan", "--results", str(uploaded))
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    for job in json.loads(outputs["matrix"])["include"]:
        world.pull_request(
            "synchronize", "--stage", "check", "--check", job["check"], "--results", str(uploaded)
        )
    world.token = token
    output.unlink()


def checkout(world: World) -> Path:
    """actions/checkout of the default branch; GitHub keeps the PR's head at refs/pull/N/head."""
    world.repo.git("update-ref", f"refs/pull/{NUMBER}/head", world.head)
    target = world.tmp / "checkout"
    shutil.rmtree(target, ignore_errors=True)
    world.repo.git("clone", "-q", "--branch", "main", str(world.repo.root), str(target))
    return target


def run_trusted(world: World, stage: str, event: str, payload: dict[str, Any], *args: str) -> int:
    out = world.tmp / f"trusted-{stage}"
    out.unlink(missing_ok=True)
    world.env["GITHUB_OUTPUT"] = str(out)
    world.env["GITHUB_RUN_ID"] = "4242"  # gradgate-publish.yml's run: all its jobs share it
    world.token = world.github.token(checks=True)
    return world.action(event, payload, "--stage", stage, "--repo", str(checkout(world)), *args)


def gate_outputs(world: World, stage: str = "gate") -> dict[str, str]:
    path = world.tmp / f"trusted-{stage}"
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def run_event(world: World, **kw: Any) -> dict[str, Any]:
    head_repo = world.github.repo(REPO).pulls[NUMBER].head_repo
    return payloads.workflow_run(
        repo=REPO, run_id=900, head=world.head, head_branch="pr", head_repo=head_repo, **kw
    )


def gate_and_publish(world: World, uploaded: Path, event: dict[str, Any] | None = None) -> int:
    """gradgate-publish.yml on workflow_run: the gate job, then (if it says so) publish."""
    event = event or run_event(world)
    trusted = world.tmp / "trusted"
    shutil.rmtree(trusted, ignore_errors=True)
    code = run_trusted(
        world, "gate", "workflow_run", event, "--uploaded", str(uploaded), "--results", str(trusted)
    )
    assert code == 0
    if gate_outputs(world).get("publish") != "true":
        return 0
    return world.action("workflow_run", event, "--stage", "publish", "--results", str(trusted))


def gradgate(world: World) -> tuple[str, str]:
    run = world.github.repo(REPO).latest_check_runs(world.head)["gradgate"]
    return run.status, str(run.conclusion)


def use_code_policy(world: World) -> None:
    world.repo.checkout("main")
    world.repo.write(".gradgate.yml", CODE_POLICY)
    world.repo.write("model.py", "def build():\n    return 1\n")
    world.repo.commit("the gradient check on model.py")
    world.repo.checkout("pr")
    world.repo.git("merge", "-q", "main")
    world.repo.write("model.py", "def build():\n    return 2\n")
    world.github.repo(REPO).pulls[NUMBER].head_sha = world.repo.commit("change the model")
    world.github.repo(REPO).pulls[NUMBER].base_sha = world.base


def waiting_fork(world: World, **run: Any) -> dict[str, Any]:
    """A fork's PR under the base's code policy, after its own run and the gate on workflow_run:
    its code checks wait for approval. The workflow_run event (``run``: its fields)."""
    use_code_policy(world)
    fork(world)
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)  # the fork's run passes everything it likes: advisory only
    event = run_event(world, **run)
    gate_and_publish(world, uploaded, event)
    return event


def approval(world: World, text: str, *, by: str = "olivia", **kw: Any) -> dict[str, Any]:
    """The issue_comment event of a comment ``text`` (say `/ok-to-test <sha>`) on the PR."""
    made = world.github.add_comment(REPO, NUMBER, text, author=by)
    return payloads.issue_comment(
        "created", repo=REPO, number=NUMBER, comment_id=made.id, body=text, author=by, **kw
    )


def check_and_publish(world: World, name: str, event: dict[str, Any], results: Path) -> None:
    """gradgate-publish.yml's check jobs (one per matrix entry, each on the runner it names)
    after the gate, then its publish job."""
    gate = gate_outputs(world)
    for job in json.loads(gate["matrix"])["include"]:
        world.action(
            name, event, "--stage", "check", "--check", job["check"],
            "--pr", gate["pr"], "--head", gate["head"], "--base-ref", gate["base_ref"],
            "--repo", str(checkout(world)), "--results", str(results),
        )  # fmt: skip
    world.action(name, event, "--stage", "publish", "--results", str(results))


def walk_publish(world: World, event: dict[str, Any], name: str) -> dict[str, JobRun]:
    """gradgate-publish.yml walked job by job for this event, with the last gate's outputs."""
    text = workflows(action=ACTION)["gradgate-publish.yml"]
    contexts = {"github": {"event_name": name, "repository": REPO, "event": event}}
    runs = walk(yaml.safe_load(text), contexts, {"gate": gate_outputs(world)}, action=ACTION)
    return {r.job: r for r in runs}
