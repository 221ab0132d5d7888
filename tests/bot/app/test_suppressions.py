"""A PR cannot silence the gate on its own lines, in the App (issue 34): an ignore comment the
pull request adds on a blocking `dl-lint` rule leaves the required check run failed, and the
report comment names it as not counted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gradgate.bot.app.settings import AppSettings

from tests.bot.app.world import AppWorld, make_world
from tests.fakegithub import FakeGitHub
from tests.gitrepo import GitRepo

POLICY = "zones:\n  - name: model\n    paths: [model.py]\n    checks: [dl-lint]\n"
HOOKED = """\
import torch.nn as nn

class Net(nn.Module):
    def forward(self, x):
        self.register_forward_hook(print){}
        return x
"""


@pytest.fixture
def world(repo: GitRepo, github: FakeGitHub, settings: AppSettings) -> Iterator[AppWorld]:
    made = make_world(repo, github, settings, policy=POLICY)
    yield made
    made.stop()
    made.live.stop()


@pytest.mark.parametrize(
    "comment",
    ["  # gradgate: ignore[hook-in-forward]", "  # gradgate: ignore"],
    ids=["named", "bare"],
)
def test_an_ignore_the_pr_adds_leaves_the_required_check_run_failed(
    world: AppWorld, comment: str
) -> None:
    head = world.push(HOOKED.format(comment), path="model.py", message="a hook, ignored")

    assert world.deliver_push().status_code == 202
    world.drain()

    runs = world.check_runs(head)
    assert (runs["gradgate"], runs["gradgate/dl-lint"]) == ("failure", "failure")
    [report] = world.report_comments()
    assert "**not counted** · `dl-lint` · `hook-in-forward`" in report
    assert "model.py:5" in report and "added in this change" in report
    assert f"the `{comment.strip()}` this change adds leaves the finding standing" in report
    assert "Suppressions added in a pull request do not count until merged" in report
