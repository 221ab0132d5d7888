from __future__ import annotations

import pytest
from gradgate.bot.plan.comment_only import same_program

BASE = b'''"""Encoder."""
import torch


class Encoder(torch.nn.Module):
    """Maps tokens to vectors."""

    def forward(self, x):
        # project, then normalise
        return self.norm(self.proj(x))
'''


@pytest.mark.parametrize(
    ("name", "head", "same"),
    [
        ("comment edited", BASE.replace(b"project, then normalise", b"proj + norm"), True),
        ("docstring edited", BASE.replace(b"Maps tokens to vectors.", b"Embeds tokens."), True),
        ("module docstring removed", BASE.replace(b'"""Encoder."""\n', b""), True),
        (
            "reformatted",
            BASE.replace(b"self.norm(self.proj(x))", b"self.norm(\n    self.proj(x)\n)"),
            True,
        ),
        ("code changed", BASE.replace(b"self.proj(x)", b"self.proj(x).detach()"), False),
        (
            "a statement added",
            BASE.replace(b"import torch", b'import torch\nMODE = "train"'),
            False,
        ),
        ("syntax error at head", BASE + b"def (:\n", False),
    ],
)
def test_same_program_table(name: str, head: bytes, same: bool) -> None:
    assert same_program("models/encoder.py", BASE, head) is same, name


def test_only_python_files_present_on_both_sides_can_be_non_semantic() -> None:
    assert not same_program("configs/train.yaml", b"a: 1\n", b"a: 1  # note\n")
    assert not same_program("models/new.py", None, BASE)
    assert not same_program("models/gone.py", BASE, None)


@pytest.mark.parametrize("depth", [2_000, 50_000], ids=["dumps-too-deep", "parses-too-deep"])
def test_an_expression_too_deep_to_compare_is_a_real_change_not_a_crash(depth: int) -> None:
    source = ("x = " + "1+" * depth + "1\n").encode()
    assert same_program("deep.py", source, source + b"# a comment\n") is False
