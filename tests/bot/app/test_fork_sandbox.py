"""Issue 17 on the App: a fork's approved code runs under bubblewrap whatever the base's config
says. The base says `sandbox: auto` (run process-level where bubblewrap is missing); on a
machine without bubblewrap, a writer's own PR still runs its model check, and a fork's approved
head gets an error that says bubblewrap is required, never an unsandboxed run. Real signed
deliveries, a worker, the fake GitHub, a tiny torch model."""

from __future__ import annotations

import pytest

from tests.bot.app.world import NUMBER, REPO, AppWorld

POLICY = """\
sandbox: auto
model:
  entrypoint: "model.py:build"
zones:
  - name: model
    paths: ["model.py"]
    checks: [gradient]
"""
MODEL = """\
import torch
import torch.nn as nn


def build():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, {width}), nn.ReLU(), nn.Linear({width}, 2)), torch.randn(3, 4)
"""
REQUIRED = "code from a fork runs only under bubblewrap, whatever the config's `sandbox:` says"
UNSANDBOXED = "sandbox: process-level only"  # the report's note on a check that ran so


@pytest.fixture
def policy() -> str:
    return POLICY


@pytest.fixture(autouse=True)
def _base_has_a_model(no_bwrap: None, world: AppWorld) -> None:
    """On a machine without bubblewrap, main gains a model, which the PR branch merges."""
    origin = world.origin
    origin.write("model.py", MODEL.format(width=8))
    world.github.repo(REPO).pulls[NUMBER].base_sha = origin.commit("a model")
    origin.checkout("pr")
    origin.git("merge", "-q", "main")


@pytest.mark.timeout(300)
def test_a_forks_approved_code_needs_bubblewrap_whatever_the_base_config_says(
    world: AppWorld,
) -> None:
    world.github.repo(REPO).pulls[NUMBER].author = "mallory"  # no write access
    head = world.push(MODEL.format(width=16), path="model.py")
    world.deliver_push(author="mallory")
    world.drain()
    assert world.check_runs(head)["gradgate/gradient"] == "in_progress"  # waits for approval

    world.comment(f"/ok-to-test {head}", author="olivia")
    world.drain()

    assert world.check_runs(head)["gradgate/gradient"] not in ("in_progress", "success")
    [comment] = world.report_comments()
    assert REQUIRED in comment
    assert UNSANDBOXED not in comment  # its code never ran without the sandbox


@pytest.mark.timeout(300)
def test_a_writers_own_pr_runs_as_the_base_config_says(world: AppWorld) -> None:
    head = world.push(MODEL.format(width=16), path="model.py")
    world.deliver_push(author="alice")  # write access
    world.drain()

    assert world.check_runs(head)["gradgate/gradient"] == "success"
    [comment] = world.report_comments()
    assert REQUIRED not in comment and UNSANDBOXED in comment
