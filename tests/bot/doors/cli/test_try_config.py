"""Try before commit (issue 19): an uncommitted `.gradgate.yml` and its factory in the working
tree, passed with `--config .gradgate.yml`, run every check, the model checks included, and
user code still never sees the source repository."""

from __future__ import annotations

import re

import pytest
from gradgate.bot.doors.cli import main

from tests.gitrepo import GitRepo

MODEL = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(4, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return self.out(self.inp(x).relu())
"""

# The factory beside the config: it imports the model from the revision's tree, and fails the
# run if it can see the source repository (its `.git`) beside itself.
FACTORY = """\
from pathlib import Path

import torch

from model import Net


def build():
    if (Path(__file__).parent / ".git").exists():
        raise RuntimeError("the source repository is visible to user code")
    torch.manual_seed(0)
    return Net(), torch.randn(3, 4)
"""

CONFIG = """\
always: [gradient, checkpoint, api-contract]
model:
  entrypoint: "gradgate_model.py:build"
"""


@pytest.fixture
def trial(repo: GitRepo) -> GitRepo:
    """A repository that never heard of gradgate: `main`, a PR branch, and, uncommitted in the
    working tree, a config and a factory."""
    repo.write("model.py", MODEL)
    repo.commit("base")
    repo.branch("pr")
    repo.write("model.py", MODEL.replace("nn.Linear(8, 2)", "nn.Linear(8, 2, bias=True)"))
    repo.commit("harmless")
    repo.write(".gradgate.yml", CONFIG)
    repo.write("gradgate_model.py", FACTORY)
    return repo


@pytest.mark.timeout(300)
def test_an_uncommitted_config_and_factory_run_the_model_checks_in_bubblewrap(
    trial: GitRepo, bubblewrap: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = trial.root / ".gradgate.yml"
    argv = ["check", "--repo", str(trial.root), "--base", "main", "--head", "pr"]
    code = main([*argv, "--config", str(config)])
    out, _ = capsys.readouterr()

    assert "cannot be shown to user code" not in out
    assert "source repository is visible" not in out
    assert code == 0, out
    for check in ("gradient", "checkpoint", "api-contract"):
        assert re.search(rf"^  {check} +passed ", out, re.M), out
    assert "sandbox: bubblewrap" in out
