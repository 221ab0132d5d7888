"""`gradgate check` on a real git repository: an ignore comment the pull request adds does not
silence a blocking finding, one that stood at base does, and both are in the report (issue 34)."""

from __future__ import annotations

import json

import pytest
from gradgate.bot.doors.cli import main

from tests.gitrepo import GitRepo

POLICY = """\
version: 1
zones:
  - name: model
    paths: ["net.py"]
    checks: [dl-lint]
"""

NET = """\
import torch.nn as nn

class Net(nn.Module):
    def forward(self, x):
        self.fc.register_forward_hook(  # gradgate: ignore[hook-in-forward]
            self._show,
        )
        return self.fc(x)

class Head(nn.Module):
    def forward(self, x):
        return self.out(x)
"""


def test_an_added_ignore_blocks_and_a_base_ignore_is_listed(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".gradgate.yml", POLICY)
    repo.write("net.py", NET)
    repo.commit("base")
    repo.branch("pr")
    repo.write(
        "net.py",
        NET.replace("self._show", "self._log").replace(
            "        return self.out(x)",
            "        self.out.register_forward_hook(print)  # gradgate: ignore\n"
            "        return self.out(x)",
        ),
    )
    repo.commit("hooks")
    args = ["check", "--repo", str(repo.root), "--base", "main", "--head", "pr"]

    code = main([*args, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert (code, data["verdict"]) == (1, "failure")
    assert data["suppressions"] == {"applied": 1, "not_counted": 1}
    (lint,) = [c for c in data["checks"] if c["name"] == "dl-lint"]
    assert [(f["kind"], f["line"]) for f in lint["findings"]] == [("lint-hook-in-forward", 12)]
    assert [(s["origin"], s["line"]) for s in lint["suppressions"]] == [("base", 5), ("change", 12)]

    assert main(args) == 1
    out = capsys.readouterr().out
    assert "[not counted] dl-lint: hook-in-forward at net.py:12 — added in this change" in out
    assert "[applied] dl-lint: hook-in-forward at net.py:5 — inline at base" in out
    assert "Suppressions added in a pull request do not count until merged" in out


HELPERS = "def default(val, d):\n    return val if val is not None else d\n"
CALLER = "from helpers import default\n\nx = default(val=None, d=1)\n"
API_POLICY = """\
version: 1
zones:
  - name: api
    paths: ["helpers.py"]
    checks: [api-contract]
checks:
  api-contract:
    allow:
      - pattern: helpers.default
        reason: variadic on purpose
"""


def test_an_api_contract_allow_rule_at_base_is_listed_and_counted_as_applied(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".gradgate.yml", API_POLICY)
    repo.write("helpers.py", HELPERS)
    repo.write("caller.py", CALLER)
    repo.commit("base")
    repo.branch("pr")
    repo.write("helpers.py", "def default(*args):\n    return next(iter(args), None)\n")
    repo.commit("variadic")
    args = ["check", "--repo", str(repo.root), "--base", "main", "--head", "pr"]

    code = main([*args, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert (code, data["verdict"]) == (0, "success")
    assert data["suppressions"] == {"applied": 1, "not_counted": 0}
    (api,) = [c for c in data["checks"] if c["name"] == "api-contract"]
    assert [(s["rule"], s["origin"], s["line"]) for s in api["suppressions"]] == [
        ("allow: helpers.default", "config", 1)
    ]

    assert main(args) == 0
    out = capsys.readouterr().out
    assert "[applied] api-contract: allow: helpers.default at helpers.py:1 — .gradgate.yml" in out
