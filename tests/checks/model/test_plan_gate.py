"""The model plan in a whole gate: real git repos, real torch, the model checks' own children.

A PR that adds a layer shows its parameters, keys and FLOPs, open in the comment; a PR that
changes nothing in the model shows the plan folded; the JSON carries it; and no child is
started for it (the factory writes a token per interpreter to a trace, outside the tree:
process-level isolation, on a machine without bubblewrap).
"""

from __future__ import annotations

import json
from pathlib import Path

from gradgate.bot.pipeline import Request, run_request
from gradgate.bot.report.load import report_from_json
from gradgate.bot.report.render import render

from tests.gitrepo import GitRepo

MODEL = """\
import os
import sys

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 16)
        {layer}
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(self.encoder(x))
        {call}
        return self.head(h)


def build():
    token = sys.__dict__.setdefault("_trace_token", os.urandom(8).hex())
    with open({trace!r}, "a") as trace:
        trace.write(token + "\\n")
    torch.manual_seed(0)
    return Net(), torch.randn(3, 8)
{more}
"""
CONFIG = """\
model:
  entrypoint: "model.py:build"
always: [gradient, checkpoint]
checks:
  gradient:
    memory_mb: 2048
  checkpoint:
    memory_mb: 2048
"""
LAYER = "self.hidden = nn.Linear(16, 16)"
CALL = "h = torch.relu(self.hidden(h))"


def model(trace: Path, *, layer: str = "", call: str = "", more: str = "") -> str:
    return MODEL.format(trace=str(trace), layer=layer, call=call, more=more)


def gate(tmp_path: Path, head: str) -> tuple[dict[str, object], str, list[str]]:
    """The gate on a PR whose model.py becomes ``head``: the JSON report's plan, the comment,
    and the trace's tokens."""
    trace = tmp_path / "trace.txt"
    repo = GitRepo(tmp_path / "repo")
    repo.pull_request(
        {".gradgate.yml": CONFIG, "model.py": model(trace)},
        {"model.py": head.replace("TRACE", str(trace))},
    )
    report = run_request(Request(repo_path=repo.root, base="main", head="pr"))
    data = json.loads(render(report, "json"))
    assert report_from_json(data).model_plan == report.model_plan  # the Action's jobs read it
    return data["model_plan"], render(report, "markdown"), trace.read_text().split()


def test_a_layer_added_shows_its_parameters_keys_and_flops(tmp_path: Path, no_bwrap: None) -> None:
    trace = Path("TRACE")
    plan, comment, tokens = gate(tmp_path, model(trace, layer=LAYER, call=CALL))

    (variant,) = plan["variants"]
    assert plan["changed"] and variant["changed"]
    parameters = {c["name"]: (c["base"], c["head"]) for c in variant["parameters"]}
    assert parameters == {"encoder": (144, 144), "hidden": (None, 272), "head": (68, 68)}
    assert (variant["total"]["base"], variant["total"]["head"]) == (212, 484)
    assert variant["added"] == ["hidden.weight", "hidden.bias"]
    # torch's count: 2 FLOPs per multiply-add, batch of 3: (8*16 + 16*4) -> + 16*16
    assert (variant["flops"]["base"], variant["flops"]["head"]) == (1152, 2688)
    assert "### 📐 Model plan: what this change does to the model" in comment
    assert "| `hidden` | – | 272 | new |" in comment
    assert "| **forward FLOPs** | 1,152 | 2,688 | +1,536 (+133.3 %) |" in comment
    assert "+   hidden: Linear" in comment
    # The plan asked the two children the checks started: one interpreter per revision.
    assert len(set(tokens)) == 2


def test_a_change_that_leaves_the_model_alone_shows_the_plan_folded(
    tmp_path: Path, no_bwrap: None
) -> None:
    head = model(Path("TRACE"), more="\n\ndef describe():\n    return 'a net'\n")
    plan, comment, _ = gate(tmp_path, head)

    assert plan["changed"] is False
    folded = "<details><summary>📐 Model plan: no change to the model (212 parameters, 1,152 FLOPs"
    assert folded in comment
    assert "### 📐 Model plan" not in comment
