"""The generated gradgate.yml walked job by job for a pull request from a fork and from a branch
of the repository (issue 17): which runner and which token each job and step gets. GitHub runs a
fork's own copy of this file, so this shows what *our* file does; the trusted side
(gradgate-publish.yml) is walked with a real gate's outputs in tests/bot/doors/action/."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from gradgate.bot.config.model import load_config
from gradgate.bot.github.matrix import github_matrix
from gradgate.bot.github.workflows import workflows
from gradgate.bot.plan.plan import ConfigOrigin, make_plan

from tests.bot.github.workflow_walk import walk

ACTION = "acme/gradgate@" + "0123456789abcdef" * 2 + "01234567"
POLICY = """\
zones:
  - name: model
    paths: ["model.py"]
    checks: [gradient]
runners:
  gradient: [self-hosted, gpu]
"""


def _plan_outputs() -> dict[str, str]:
    """What the plan job's gradgate writes to GITHUB_OUTPUT for a change to model.py."""
    config = load_config(POLICY)
    plan = make_plan(config, ["model.py"], changed_files=1, config_origin=ConfigOrigin.BASE)
    text = github_matrix(plan, config)
    return dict(line.split("=", 1) for line in text.splitlines())


def _pull_request(head_repo: str) -> dict[str, Any]:
    return {
        "github": {
            "event_name": "pull_request",
            "repository": "acme/model",
            "event": {
                "action": "synchronize",
                "pull_request": {
                    "number": 7,
                    "head": {"sha": "f" * 40, "repo": {"full_name": head_repo}},
                },
            },
        }
    }


def _checks_workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(workflows(action=ACTION)["gradgate.yml"])
    return data


def test_a_forks_pull_request_never_reaches_a_self_hosted_runner_from_our_workflow() -> None:
    runs = walk(
        _checks_workflow(), _pull_request("mallory/model"), {"plan": _plan_outputs()},
        action=ACTION,
    )  # fmt: skip

    assert [(r.job, (r.matrix or {}).get("check")) for r in runs] == [
        ("plan", None), ("check", "protected"), ("check", "gradient"),
    ]  # fmt: skip
    assert all(r.runs_on == "ubuntu-latest" for r in runs)  # GitHub-hosted, every job
    assert all(r.permissions == {"contents": "read"} for r in runs)  # a read-only token
    # ...which gradgate's own steps are not even handed.
    assert all(s.token is False for r in runs for s in r.steps if s.token is not None)


def test_a_branch_of_the_repository_runs_each_check_on_the_runners_runners_names() -> None:
    runs = walk(
        _checks_workflow(), _pull_request("acme/model"), {"plan": _plan_outputs()},
        action=ACTION,
    )  # fmt: skip

    on = {(r.matrix or {}).get("check"): r.runs_on for r in runs}
    assert on == {None: "ubuntu-latest", "protected": ["ubuntu-latest"],
                  "gradient": ["self-hosted", "gpu"]}  # fmt: skip


@pytest.mark.parametrize("event", ["edited"])
def test_a_title_edit_runs_no_job(event: str) -> None:
    contexts = _pull_request("mallory/model")
    contexts["github"]["event"]["action"] = event

    assert walk(_checks_workflow(), contexts, {}, action=ACTION) == []
