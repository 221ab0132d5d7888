"""`gradgate init` guesses a model factory, builds it once, and the gradient check then runs."""

from __future__ import annotations

import json
import re

import pytest
from gradgate.bot.doors.cli import main

from tests.bot.doors.cli import init_repos
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


def _init(repo: GitRepo, files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> str:
    """Commit ``files``, run `gradgate init`, which must build a model: what it said."""
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("library")
    code = main(["init", "--repo", str(repo.root)])
    said = capsys.readouterr().out
    assert code == 0, said
    return said


def _factory(repo: GitRepo) -> str:
    return (repo.root / "gradgate_factory.py").read_text()


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


def test_init_that_builds_no_model_says_so_writes_a_template_and_exits_2(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(
        "net.py",
        "from torch import nn\n\n\nclass Net(nn.Module):\n"
        "    def __init__(self, backbone):\n        super().__init__()\n",
    )
    repo.commit("net")
    assert main(["init", "--repo", str(repo.root)]) == 2
    said = capsys.readouterr().out
    assert said.startswith("no model could be built: wrote ")
    assert "a template to fill in" in said and "net.Net" in said and "backbone" in said
    assert "the model checks\n  (gradient, checkpoint, behaviour) cannot run" in said
    assert (repo.root / ".gradgate.yml").exists()  # the rest of init's work is written
    factory = (repo.root / "gradgate_factory.py").read_text()
    assert "net.Net  (net.py)" in factory and "raise NotImplementedError" in factory
    config = (repo.root / ".gradgate.yml").read_text()
    assert '# model:\n#   entrypoint: "gradgate_factory.py:build"' in config


def test_init_builds_a_unet_written_against_module_imported_from_torch_nn(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _init(repo, init_repos.UNET, capsys)
    assert "model: ddpm.unet.Unet (" in said  # before nine helpers no one builds
    assert "Unet: dim=16" in said  # a required width without annotation or default
    assert "time: timesteps below 16 of shape [2]" in said
    factory = _factory(repo)
    assert "from ddpm.unet import Unet" in factory and "dim=16," in factory
    assert '"time": torch.randint(0, 16, (2,))' in factory


def test_init_fills_a_required_width_named_dim(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _init(repo, init_repos.DIM, capsys)
    assert "model: mixer.MLPMixer" in said
    assert "dim=16," in _factory(repo) and "in_features=12," in _factory(repo)


@pytest.mark.parametrize(
    ("files", "made", "said"),
    [
        (init_repos.MINGPT, "config = GPT.get_default_config()",
         "with a tiny config from GPT.get_default_config()"),
        (init_repos.CLASS_DEFAULTS, "config = GPTConfig()", "with a tiny GPTConfig"),
    ],
    ids=["default-config-on-the-model-class", "class-level-defaults"],
)  # fmt: skip
def test_init_fills_a_cfgnode_style_config_object(
    files: dict[str, str],
    made: str,
    said: str,
    repo: GitRepo,
    capsys: pytest.CaptureFixture[str],
) -> None:
    told = _init(repo, files, capsys)
    assert said in told
    factory = _factory(repo)
    assert made in factory and "config.n_layer = 2" in factory and "config.n_embd = 16" in factory
    assert "config=config," in factory
    # minGPT's sizes are None until a preset fills them, and the preset must then be unset.
    assert ("config.model_type = None" in factory) == (files is init_repos.MINGPT)


def test_init_builds_a_wrapper_around_a_decoder_stack_of_the_same_package(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _init(repo, init_repos.WRAPPER, capsys)
    assert "model: xlite.layers.TransformerWrapper around a tiny Decoder (" in said
    assert "Decoder: dim=16, depth=2, heads=2" in said  # through `Decoder(**kwargs)`
    factory = _factory(repo)
    assert "    decoder = Decoder(\n        dim=16," in factory
    assert "attn_layers=decoder," in factory
    # Dropout reaches every part that takes one; a flag that cannot be flipped says why.
    assert '"dropout": {"model": _model(emb_dropout=0.1, attn_dropout=0.1, ff_dropout=0.1)' in (
        factory
    )
    assert '"attn_qk_norm": {"model": _model(attn_qk_norm=True)' in factory
    assert "causal: AssertionError: cannot set causality on decoder" in factory
    assert "cross_attend: ValueError: cross_attend needs a context" in factory


def test_init_gives_dropout_and_each_flag_a_variant_within_its_budget_which_the_checks_run(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    for path, text in init_repos.FLAGS.items():
        repo.write(path, text)
    repo.commit("gpt")
    said, report = _init_then_gate(
        repo, "model.py", "q = self.q_norm(q)", "q = self.q_norm(q).detach()", capsys
    )
    assert "  variants beside default, each built and ran once:\n    dropout: dropout=0.1\n" in said
    assert "  no variant (at most 6 feature flags get one):\n" in said
    factory = _factory(repo)
    variants = re.findall(r'^        "(\w+)": \{"model": _model\((.*)\)', factory, re.M)
    assert variants == [
        ("default", ""), ("dropout", "dropout=0.1"), ("bias", "bias=False"),
        ("qk_norm", "qk_norm=True"), ("parallel_residual", "parallel_residual=True"),
        ("tie_weights", "tie_weights=True"), ("swiglu", "swiglu=True"),
        ("final_norm", "final_norm=False"),
    ]  # fmt: skip
    config = (repo.root / ".gradgate.yml").read_text()
    assert "# Variant budget: at most 6 feature flags get a variant each" in config
    assert "#   cache_enabled: changed neither the output nor the weights" in config
    assert "#   learned_pos: over the budget of 6 feature flags" in config
    assert "verbose" not in config  # not a feature: how the model talks, not what it computes
    model_zone = config.split("- name: model-core")[1].split("- name:")[0]
    assert "- gradient\n      - checkpoint\n      - behaviour\n" in model_zone
    # The detach is on a path only the `qk_norm` variant runs: the default model cannot see it.
    row = _gradient(report)
    assert row["outcome"] == "fail", row
    (finding,) = row["findings"]
    assert finding["message"].startswith("In variant `qk_norm`: `blocks.{0,1}.q_norm.*`")
