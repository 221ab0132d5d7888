"""`gradgate init` guesses a model factory, builds it once, and the gradient check then runs."""

from __future__ import annotations

import json

import pytest
from gradgate.bot.doors.cli import main

from tests.gitrepo import GitRepo

# A flat nanoGPT-style repository: the whole model in model.py, sizes as integer arguments.
FLAT_GPT = """\
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.attn = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                 nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(x, x, x, need_weights=False)[0]
        return x + self.mlp(x)


class GPT(nn.Module):
    def __init__(self, vocab_size=50304, block_size=1024, n_layer=12, n_head=12, n_embd=768,
                 dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.head(x)
"""

# A library whose model takes a config dataclass defined in another module.
CONFIG = """\
from dataclasses import dataclass


@dataclass
class TinyConfig:
    in_features: int = 3
    hidden_size: int = 1024
    num_layers: int = 8
    num_classes: int = 1000
    dropout: float = 0.1
"""

MODELING = """\
from __future__ import annotations

from torch import nn

from tinylib.config import TinyConfig


class Layer(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return x + self.fc(x).relu()


class TinyClassifier(nn.Module):
    def __init__(self, config: TinyConfig):
        super().__init__()
        self.stem = nn.Linear(config.in_features, config.hidden_size)
        self.layers = nn.Sequential(*[Layer(config.hidden_size) for _ in range(config.num_layers)])
        self.head = nn.Linear(config.hidden_size, config.num_classes)

    def forward(self, features):
        return self.head(self.layers(self.stem(features)))
"""


def _init_then_gate(
    repo: GitRepo, file: str, old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> tuple[str, dict]:
    assert main(["init", "--repo", str(repo.root)]) == 0
    said = capsys.readouterr().out
    repo.commit("gradgate init")
    repo.branch("pr")
    text = (repo.root / file).read_text()
    assert old in text
    repo.write(file, text.replace(old, new, 1))
    repo.commit("detach")
    main(["check", "--repo", str(repo.root), "--base", "main", "--head", "pr",
          "--only", "gradient", "--format", "json"])  # fmt: skip
    return said, json.loads(capsys.readouterr().out)


def _gradient(report: dict) -> dict:
    (row,) = [c for c in report["checks"] if c["name"] == "gradient"]
    return row


def test_init_guesses_a_flat_gpt_factory_and_the_gradient_check_catches_a_detach(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("model.py", FLAT_GPT)
    repo.write("train.py", "loss.backward()\n")
    repo.commit("gpt")
    said, report = _init_then_gate(
        repo, "model.py", "x = block(x)", "x = block(x).detach()", capsys
    )
    assert "model.GPT" in said and "idx: token ids below 64" in said
    factory = (repo.root / "gradgate_factory.py").read_text()
    assert "n_layer=2" in factory and "torch.randint(0, 64, (2, 8))" in factory
    config = (repo.root / ".gradgate.yml").read_text()
    assert '\nmodel:\n  entrypoint: "gradgate_factory.py:build"' in config
    row = _gradient(report)
    assert row["outcome"] == "fail", row
    assert any("wte" in f["message"] or "wte" in (f["details"] or "") for f in row["findings"])


def test_init_builds_a_config_dataclass_library_and_the_gradient_check_runs(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("pyproject.toml", '[project]\nname = "tinylib"\n')
    repo.write("tinylib/__init__.py", "")
    repo.write("tinylib/config.py", CONFIG)
    repo.write("tinylib/modeling.py", MODELING)
    repo.commit("lib")
    said, report = _init_then_gate(
        repo, "tinylib/modeling.py", "self.layers(self.stem(features))",
        "self.layers(self.stem(features).detach())", capsys,
    )  # fmt: skip
    assert "tinylib.modeling.TinyClassifier with a tiny TinyConfig" in said
    factory = (repo.root / "gradgate_factory.py").read_text()
    assert "hidden_size=16" in factory and "num_layers=2" in factory
    assert "in_features=3" in factory  # an input width is kept: the data decides it
    row = _gradient(report)
    assert row["outcome"] == "fail", row
    assert any("stem" in f["message"] or "stem" in (f["details"] or "") for f in row["findings"])


def test_init_writes_a_template_naming_the_classes_it_could_not_build(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(
        "net.py",
        "from torch import nn\n\n\nclass Net(nn.Module):\n"
        "    def __init__(self, backbone):\n        super().__init__()\n",
    )
    repo.commit("net")
    assert main(["init", "--repo", str(repo.root)]) == 0
    said = capsys.readouterr().out
    assert "a template to fill in" in said and "net.Net" in said and "backbone" in said
    factory = (repo.root / "gradgate_factory.py").read_text()
    assert "net.Net  (net.py)" in factory and "raise NotImplementedError" in factory
    config = (repo.root / ".gradgate.yml").read_text()
    assert '# model:\n#   entrypoint: "gradgate_factory.py:build"' in config
