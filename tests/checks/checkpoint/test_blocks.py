"""Issue 20: a change repeated in every block is one finding with one map, exact about blocks."""

from __future__ import annotations

import textwrap

import yaml
from gradgate.bot.config.model import load_config
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.checkpoint.blocks import fold_renames
from gradgate.checks.checkpoint.child.keys import migrate
from gradgate.checks.checkpoint.infer import infer
from gradgate.checks.checkpoint.settings import CheckpointSettings
from gradgate.checks.checkpoint.tensors import TensorMeta

from tests.checks.checkpoint.scenario import kinds, only, run
from tests.gitrepo import GitRepo

STACK = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(8)
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            return x + self.fc(self.norm(x))


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block() for _ in range(4)])

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x


    def build():
        torch.manual_seed(0)
        return Net(), torch.randn(3, 8)
    """
)
RENAMED = STACK.replace("self.fc = ", "self.ffn = ").replace("self.fc(", "self.ffn(")


def test_a_rename_in_every_block_of_four_is_one_finding_with_one_map(repo: GitRepo) -> None:
    result = run(repo, base={"model.py": STACK}, head={"model.py": RENAMED})
    assert result.outcome is Outcome.FAIL
    assert kinds(result) == ["checkpoint-renamed"]
    finding = only(result, "checkpoint-renamed")
    assert finding.severity is Severity.BLOCKING
    assert "`blocks.{0..3}.fc.*`" in finding.message
    assert "`blocks.{0..3}.ffn.*`" in finding.message
    assert "in 4 blocks alike" in finding.message
    assert "With this map the checkpoint loads (checked)" in finding.message
    assert (finding.file, finding.line) == ("model.py", 9)  # `self.ffn = ...` at head
    assert finding.details is not None
    assert finding.details.count("migrations:") == 1
    assert finding.message.count("'^blocks") == 0  # the map is printed once, in the details
    pasted = load_config(yaml.safe_dump({"always": []}) + finding.details)
    settings = pasted.settings_for("checkpoint")
    assert isinstance(settings, CheckpointSettings)
    assert settings.rules == [(r"^blocks\.(\d+)\.fc\.", r"blocks.\1.ffn.")]


def t(*shape: int) -> TensorMeta:
    return TensorMeta(shape, "float32")


def test_a_rename_in_some_blocks_only_names_those_blocks_and_leaves_the_others() -> None:
    checkpoint = {f"blocks.{i}.{leaf}.weight": t(8, 8) for i in range(4) for leaf in ("fc",)}
    model = {f"blocks.{i}.ffn.weight": t(8, 8) for i in range(3)} | {"blocks.3.fc.weight": t(8, 8)}
    unexpected, missing = set(checkpoint) - set(model), set(model) - set(checkpoint)
    (rename,) = fold_renames(infer(checkpoint, model, unexpected, missing).renames, checkpoint)
    assert (rename.old, rename.new, rename.copies) == ("blocks.{0..2}.fc", "blocks.{0..2}.ffn", 3)
    renamed, _, _ = migrate(list(checkpoint), [(rename.pattern, rename.replacement)])
    assert set(renamed) == set(model)  # block 3 keeps its key: the rule lists the blocks


def test_renames_that_differ_between_blocks_stay_apart() -> None:
    checkpoint = {f"blocks.{i}.fc.weight": t(8, 8) for i in range(2)}
    model = {"blocks.0.ffn.weight": t(8, 8), "blocks.1.mlp.weight": t(8, 8)}
    unexpected, missing = set(checkpoint) - set(model), set(model) - set(checkpoint)
    renames = fold_renames(infer(checkpoint, model, unexpected, missing).renames, checkpoint)
    assert sorted((r.old, r.new) for r in renames) == [
        ("blocks.0.fc", "blocks.0.ffn"),
        ("blocks.1.fc", "blocks.1.mlp"),
    ]
