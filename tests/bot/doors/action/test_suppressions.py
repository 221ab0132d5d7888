"""A PR cannot silence the gate on its own lines, in the Action (issue 34): an ignore comment
the pull request adds on a blocking `dl-lint` rule leaves the required check failed, and the
report names it as not counted; so does a fork's, judged again on the trusted side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gradgate.bot.github.results import CHECK_FILE

from tests.bot.doors.action.trust_world import fork, fork_run, gate_and_publish, gradgate
from tests.bot.doors.action.world import NUMBER, REPO, World, read_json

POLICY = """\
zones:
  - name: model
    paths: ["net.py"]
    checks: [dl-lint]
"""
NET = (
    "import torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n"
)
HOOKED = NET.replace(
    "        return x", "        self.register_forward_hook(print){}\n        return x"
)
COMMENTS = ["  # gradgate: ignore[hook-in-forward]", "  # gradgate: ignore"]


def hooked_pr(world: World, comment: str) -> str:
    """dl-lint on net.py at base; the PR adds a hook inside `forward`, with ``comment`` on it."""
    repo = world.repo
    repo.checkout("main")
    repo.write(".gradgate.yml", POLICY)
    repo.write("net.py", NET)
    repo.commit("dl-lint on net.py")
    repo.checkout("pr")
    repo.git("merge", "-q", "main")
    repo.write("net.py", HOOKED.format(comment))
    head = repo.commit("a hook, and an ignore for it")
    pull = world.github.repo(REPO).pulls[NUMBER]
    pull.head_sha, pull.base_sha = head, world.base
    return head


def assert_named_and_blocking(world: World, comment: str) -> None:
    [report] = world.report_comments()
    assert "❌ gradgate failed" in report
    assert "**not counted** · `dl-lint` · `hook-in-forward`" in report
    assert "net.py:5" in report and "added in this change" in report
    assert f"the `{comment.strip()}` this change adds leaves the finding standing" in report
    assert "Suppressions added in a pull request do not count until merged" in report


@pytest.mark.parametrize("comment", COMMENTS, ids=["named", "bare"])
def test_an_ignore_the_pr_adds_leaves_the_required_check_failed(world: World, comment: str) -> None:
    head = hooked_pr(world, comment)

    assert world.pull_request() == 1

    assert world.statuses(head)["gradgate"] == "failure"
    assert world.statuses(head)["gradgate/dl-lint"] == "failure"
    assert_named_and_blocking(world, comment)


def test_a_forks_added_ignore_is_judged_again_on_the_trusted_side(
    world: World, tmp_path: Path
) -> None:
    fork(world)
    comment = COMMENTS[0]
    hooked_pr(world, comment)
    uploaded = tmp_path / "uploaded"
    fork_run(world, uploaded)
    # The fork's own run says dl-lint passed, its suppression counted: the trusted side ignores it.
    path = uploaded / CHECK_FILE.format(name="dl-lint")
    forged = read_json(path)
    forged["verdict"] = "success"
    for check in forged["checks"]:
        check.update(outcome="pass", findings=[], suppressions=[])
    path.write_text(json.dumps(forged))

    assert gate_and_publish(world, uploaded) == 0

    assert gradgate(world) == ("completed", "failure")
    assert_named_and_blocking(world, comment)
