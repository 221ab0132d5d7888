"""Issue 35: a factory's named variants, each compared with its namesake, in real children.

The model has an attention-style gate that exists only when a flag is on; the factory returns
the model with the flag off (`default`) and on (`gated`). A change to the gate breaks old
checkpoints only in `gated`: the check must see it there and say so.
"""

from __future__ import annotations

import textwrap

from gradgate.checks.base import Outcome, Severity

from tests.checks.checkpoint.scenario import kinds, only, run
from tests.gitrepo import GitRepo

GATED = textwrap.dedent(
    """\
    import torch
    from torch import nn
    import torch.nn.functional as F


    class Net(nn.Module):
        def __init__(self, gated=False):
            super().__init__()
            self.embed = nn.Linear(8, 16)
            self.gate = nn.Linear(16, 16) if gated else None
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            h = torch.relu(self.embed(x))
            if self.gate is not None:
                h = h * torch.sigmoid(self.gate(h))
            return self.fc(h)


    def build():
        torch.manual_seed(0)
        x = torch.randn(3, 8)
        return {"default": (Net(), x), "gated": (Net(gated=True), x)}
    """
)
# The gate renamed: its keys move, in the gated variant only (the default has no gate).
RENAMED_GATE = GATED.replace("self.gate", "self.attn_gate")
# The gate's weight used transposed: same keys and shapes, other outputs, in `gated` only.
TRANSPOSED_GATE = GATED.replace(
    "torch.sigmoid(self.gate(h))",
    "torch.sigmoid(F.linear(h, self.gate.weight.t(), self.gate.bias))",
)
TOUCHED = "\nVERSION = 2\n"  # code, not a comment: the model checks run (P5)


def test_a_gate_renamed_in_a_non_default_variant_blocks_naming_that_variant(
    repo: GitRepo,
) -> None:
    result = run(repo, base={"model.py": GATED}, head={"model.py": RENAMED_GATE})

    assert result.outcome is Outcome.FAIL, result.findings
    assert kinds(result) == ["checkpoint-renamed"]  # nothing about the default variant
    finding = only(result, "checkpoint-renamed")
    assert finding.severity is Severity.BLOCKING
    assert finding.message.startswith("In variant `gated`: `gate.*` in the base model's state")
    assert "`attn_gate.*`" in finding.message
    # The suggested map was tried in that variant: it loads, and the outputs agree.
    assert "With this map the checkpoint loads (checked)" in finding.message
    assert "base weights give the same outputs" in finding.message
    line = 1 + RENAMED_GATE.splitlines().index(
        "        self.attn_gate = nn.Linear(16, 16) if gated else None"
    )
    assert (finding.file, finding.line) == ("model.py", line)


def test_a_gate_weight_used_transposed_in_a_non_default_variant_changes_its_outputs(
    repo: GitRepo,
) -> None:
    result = run(repo, base={"model.py": GATED}, head={"model.py": TRANSPOSED_GATE})

    assert result.outcome is Outcome.FAIL, result.findings
    finding = only(result, "checkpoint-behaviour-changed")
    assert finding.message.startswith("In variant `gated`: Base weights load into the head model")
    assert kinds(result) == ["checkpoint-behaviour-changed"]


def test_the_same_variants_with_no_change_to_them_pass(repo: GitRepo) -> None:
    result = run(repo, base={"model.py": GATED}, head={"model.py": GATED + TOUCHED})

    assert result.outcome is Outcome.PASS, result.findings
    assert result.findings == ()


def test_a_variant_the_pr_introduces_is_a_note_and_the_model_it_had_is_compared_with_default(
    repo: GitRepo,
) -> None:
    one_model = GATED.replace(
        'return {"default": (Net(), x), "gated": (Net(gated=True), x)}', "return Net(), x"
    )
    renamed = RENAMED_GATE.replace("self.fc", "self.classifier")

    result = run(repo, base={"model.py": one_model}, head={"model.py": renamed})

    assert result.outcome is Outcome.FAIL, result.findings
    finding = only(result, "checkpoint-renamed")  # the default, as before: not named
    assert finding.message.startswith("`fc.*` in the base model's state dict is now")
    note = only(result, "checkpoint-variant-unpaired")
    assert note.severity is Severity.NOTE
    assert "variant `gated` is only at head" in note.message
