"""A scenario: a tiny model repo at base, the PR's change at head, the checkpoint check's result.

The repo is real (git, in a temp dir), the model is real torch code in ``model.py``, and the
check runs through the pipeline with only `checkpoint` selected, so the config is read from
base, the revisions are exported and the children run under this interpreter.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml
from gradgate.bot.pipeline import Request, run_request
from gradgate.checks.base import CheckResult, Finding

from tests.gitrepo import GitRepo

MODEL = textwrap.dedent(
    """\
    import torch
    from torch import nn
    import torch.nn.functional as F


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(8, 16)
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            return self.fc(torch.relu(self.embed(x)))


    def build():
        torch.manual_seed(0)
        return Net(), torch.randn(3, 8)
    """
)


def config(**checkpoint: Any) -> str:
    document = {
        "version": 1,
        "always": [],
        "zones": [{"name": "model", "paths": ["model.py", "ckpt/**"], "checks": ["checkpoint"]}],
        "model": {"entrypoint": "model:build"},
        "checks": {"checkpoint": {"timeout_s": 120, **checkpoint}},
    }
    return yaml.safe_dump(document, sort_keys=False)


def run(
    repo: GitRepo,
    *,
    base: Mapping[str, str | bytes],
    head: Mapping[str, str | bytes | None],
    settings: Mapping[str, Any] | None = None,
    before_head: Callable[[Path], None] | None = None,
    user_code: bool = True,
) -> CheckResult:
    """Commit ``base`` (plus .gradgate.yml) on main, ``head`` on a PR branch (None deletes a
    file), and run the checkpoint check on main..pr."""
    policy = {".gradgate.yml": config(**(settings or {}))}
    then = None if before_head is None else lambda: before_head(repo.root)
    repo.pull_request({**policy, **base}, head, then=then)
    report = run_request(
        Request(
            repo_path=repo.root,
            base="main",
            head="pr",
            only=("checkpoint",),
            python=sys.executable,
            user_code=user_code,
        )
    )
    result = report.result_for("checkpoint")
    assert result is not None, report
    return result


def kinds(result: CheckResult) -> list[str]:
    return [f.kind for f in result.findings]


def only(result: CheckResult, kind: str) -> Finding:
    found = [f for f in result.findings if f.kind == kind]
    assert len(found) == 1, [(f.kind, f.message) for f in result.findings]
    return found[0]
