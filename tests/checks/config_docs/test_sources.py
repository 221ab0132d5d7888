"""sources: facts from configs and code, read statically, with their lines."""

from __future__ import annotations

from gradgate.checks.config_docs.model import Fact
from gradgate.checks.config_docs.sources.data_facts import read_json, read_toml
from gradgate.checks.config_docs.sources.python_facts import read_code_defaults, read_config_module
from gradgate.checks.config_docs.sources.yaml_facts import read_yaml
from gradgate.checks.config_docs.values import from_text


def table(facts: list[Fact]) -> list[tuple[int, str, str]]:
    return [(f.line, ".".join(f.key), f.value.text) for f in facts]


def test_yaml_nested_keys_lists_merges_and_interpolations() -> None:
    text = (
        "model:\n  dim: 512\n  heads: 8\n"
        "optimizer:\n  lr: 3e-4\n  betas: [0.9, 0.95]\n"
        "head_dim: ${model.dim}\n"
        "data_dir: ${oc.env:DATA}\n"
        "base: &base {seed: 1}\n"
        "run:\n  <<: *base\n  name: 'tiny'\n"
    )
    facts, problems = read_yaml("configs/train.yaml", text)
    assert problems == []
    assert table(facts) == [
        (2, "model.dim", "512"),
        (3, "model.heads", "8"),
        (5, "optimizer.lr", "3e-4"),
        (6, "optimizer.betas", "[0.9, 0.95]"),
        (7, "head_dim", "${model.dim}"),
        (8, "data_dir", "${oc.env:DATA}"),
        (9, "base.seed", "1"),
        (12, "run.name", "tiny"),
        (9, "run.seed", "1"),
    ]
    by_key = {f.key: f.value for f in facts}
    assert (by_key[("head_dim",)].kind, by_key[("head_dim",)].data) == ("num", 512.0)
    assert by_key[("data_dir",)].kind == "unknown"


def test_yaml_that_does_not_parse_names_its_line() -> None:
    facts, problems = read_yaml("c.yaml", "a: 1\nb: [1, 2\nc: 3\n")
    assert facts == []
    assert [(p.kind, p.line) for p in problems] == [("unparsed", 3)]


def test_yaml_alias_bomb_is_refused_not_expanded() -> None:
    lines = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [
        f"{chr(98 + i)}: &{chr(98 + i)} {{x: *{chr(97 + i)}, y: *{chr(97 + i)}}}" for i in range(20)
    ]
    facts, problems = read_yaml("bomb.yaml", "\n".join(lines) + "\n")
    assert facts == [] and [p.kind for p in problems] == ["unparsed"]


def test_json_and_toml_values_with_lines() -> None:
    facts, _ = read_json("c.json", '{\n  "lr": 0.001,\n  "opt": {"betas": [0.9, 0.95]}\n}\n')
    assert table(facts) == [(2, "lr", "0.001"), (3, "opt.betas", "[0.9, 0.95]")]
    facts, _ = read_toml("c.toml", 'lr = 3e-4  # rate\n\n[train]\nname = "tiny"\nopt.wd = 0.1\n')
    assert table(facts) == [
        (1, "lr", "3e-4"),
        (4, "train.name", "tiny"),
        (5, "train.opt.wd", "0.1"),
    ]


def test_python_config_module_is_read_without_importing_it() -> None:
    text = (
        "import os\nout_dir = 'out-shakespeare'\nbatch_size = 64\nlearning_rate = 1e-3\n"
        "device = os.environ['DEVICE']\n_private = 1\nraise SystemExit('never runs')\n"
    )
    facts, problems = read_config_module("config/train_shakespeare.py", text)
    assert problems == []
    assert table(facts) == [
        (2, "out_dir", "out-shakespeare"),
        (3, "batch_size", "64"),
        (4, "learning_rate", "1e-3"),
    ]


def test_dataclass_fields_and_option_defaults() -> None:
    text = """\
import argparse
import click
from dataclasses import dataclass, field


@dataclass
class GPTConfig:
    block_size: int = 1024
    dropout: float = field(default=0.0)
    tags: list = field(default_factory=list)


parser = argparse.ArgumentParser()
parser.add_argument("-b", "--batch-size", type=int, default=32)
parser.add_argument("--lr", dest="learning_rate", default=3e-4)
parser.add_argument("--workers", default=os.cpu_count())
parser.set_defaults(seed=0)


@click.option("--epochs", default=20)
def main(epochs):
    pass
"""
    facts, _ = read_code_defaults("train.py", text)
    assert [(f.line, ".".join(f.key), f.value.text, f.origin) for f in facts] == [
        (8, "GPTConfig.block_size", "1024", "dataclass `GPTConfig`"),
        (9, "GPTConfig.dropout", "0.0", "dataclass `GPTConfig`"),
        (14, "batch_size", "32", "argparse default"),
        (15, "learning_rate", "3e-4", "argparse default"),
        (17, "seed", "0", "argparse default"),
        (20, "epochs", "20", "click default"),
    ]


# Nine levels of nine aliases each, as lists: 9**9 (387 million) items once expanded, in ~300
# bytes. The mapping form above was refused; this one ran past 150 s at 1.2 GB (issue 18).
LIST_LAUGHS = "l0: &l0 lol\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 10)
)


def test_yaml_alias_bomb_made_of_lists_is_refused_not_expanded() -> None:
    facts, problems = read_yaml("bomb.yaml", LIST_LAUGHS)
    assert facts == [] and [p.kind for p in problems] == ["unparsed"]
    assert "anchors and aliases expand it by more than 50,000 nodes" in problems[0].why


def test_a_flow_list_of_aliases_in_a_doc_is_text_not_expanded() -> None:
    cell = "[" + ", ".join(f"&l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 10))
    value = from_text(cell.replace("*l0", "1") + "]")
    assert value.kind == "str"


def test_a_long_yaml_list_written_out_is_not_a_bomb() -> None:
    facts, problems = read_yaml("long.yaml", "ids: [" + ", ".join(["7"] * 120_000) + "]\n")
    assert problems == [] and len(facts) == 1
