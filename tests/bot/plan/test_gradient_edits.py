"""Gradient-sensitive edits: the lines that add or remove `.detach()`, no_grad, hooks... (pure)."""

from __future__ import annotations

import pytest
from gradgate.bot.plan.python_edits import classify
from gradgate.checks.gradient.edits import GradientEdit, gradient_edits, needs_parse

BASE = b'''"""Encoder."""
import torch


class Encoder(torch.nn.Module):
    def forward(self, x):
        # a .detach() here would stop the projection from learning
        note = "call x.detach() to freeze"
        h = self.proj(x)
        with torch.no_grad():
            side = self.aux(x)
        self.backbone.requires_grad_(False)
        torch.set_grad_enabled(True)
        return self.norm(h) + side
'''

PROJ = b"        h = self.proj(x)\n"
NO_GRAD_AUX = b"        with torch.no_grad():\n            side = self.aux(x)\n"
FREEZE = b"        self.backbone.requires_grad_(False)\n"
GRAD_ON = b"        torch.set_grad_enabled(True)\n"


def edits(head: bytes, base: bytes = BASE, path: str = "models/encoder.py") -> list[str]:
    """Each edit as "path:line +construct" (added) or "-construct" (removed)."""
    found = gradient_edits([(path, base, head)])
    return [f"{e.path}:{e.line} {'-' if e.removed else '+'}{e.construct}" for e in found]


@pytest.mark.parametrize(
    ("name", "head", "expected"),
    [
        (
            "detach added",
            BASE.replace(b"h = self.proj(x)", b"h = self.proj(x).detach()"),
            ["models/encoder.py:9 +.detach()"],
        ),
        (
            "no_grad added around a call",
            BASE.replace(
                b"        h = self.proj(x)\n",
                b"        with torch.no_grad():\n            h = self.proj(x)\n",
            ),
            ["models/encoder.py:9 +torch.no_grad"],
        ),
        (
            "no_grad moved to cover other code (G2)",
            BASE.replace(b"side = self.aux(x)", b"h = self.proj(h)"),
            ["models/encoder.py:10 +torch.no_grad", "models/encoder.py:10 -torch.no_grad"],
        ),
        (
            "no_grad removed",
            BASE.replace(
                b"        with torch.no_grad():\n            side = self.aux(x)\n",
                b"        side = self.aux(x)\n",
            ),
            ["models/encoder.py:10 -torch.no_grad"],
        ),
        (
            "freeze moved to the wrong module (G13)",
            BASE.replace(b"self.backbone.requires_grad_", b"self.head.requires_grad_"),
            ["models/encoder.py:12 +.requires_grad_()", "models/encoder.py:12 -.requires_grad_()"],
        ),
        (
            "requires_grad set on a parameter",
            BASE.replace(
                b"        return", b"        self.proj.weight.requires_grad = False\n        return"
            ),
            ["models/encoder.py:14 +.requires_grad"],
        ),
        (
            "a tensor created with requires_grad",
            BASE.replace(
                b"        return", b"        t = torch.zeros(3, requires_grad=True)\n        return"
            ),
            ["models/encoder.py:14 +requires_grad="],
        ),
        (
            "a hook registered",
            BASE.replace(
                b"        return", b"        self.proj.register_forward_hook(log)\n        return"
            ),
            ["models/encoder.py:14 +.register_forward_hook()"],
        ),
        (
            "set_grad_enabled argument changed",
            BASE.replace(b"set_grad_enabled(True)", b"set_grad_enabled(False)"),
            [
                "models/encoder.py:13 +torch.set_grad_enabled",
                "models/encoder.py:13 -torch.set_grad_enabled",
            ],
        ),
        (
            ".data read",
            BASE.replace(b"h = self.proj(x)", b"h = self.proj(x.data)"),
            ["models/encoder.py:9 +.data"],
        ),
        (
            "inference_mode decorator",
            BASE.replace(b"    def forward", b"    @torch.inference_mode()\n    def forward"),
            ["models/encoder.py:6 +torch.inference_mode"],
        ),
    ],
)
def test_adding_or_removing_a_construct_is_an_edit_at_its_line(
    name: str, head: bytes, expected: list[str]
) -> None:
    assert edits(head) == expected, name


@pytest.mark.parametrize(
    ("name", "head"),
    [
        ("comment mentions detach", BASE.replace(b"a .detach() here", b"one more .detach() here")),
        ("string mentions detach", BASE.replace(b'"call x.detach() to freeze"', b'"x.detach()!"')),
        (
            "new comment line",
            BASE.replace(b"        return", b"        # .detach() no\n        return"),
        ),
        (
            "a no_grad block moved up",
            BASE.replace(PROJ + NO_GRAD_AUX, NO_GRAD_AUX + PROJ),
        ),
        (
            "the freeze moved below the grad mode line",
            BASE.replace(FREEZE + GRAD_ON, GRAD_ON + FREEZE),
        ),
        (
            "a comment added on a detach-free code line",
            BASE.replace(b"h = self.proj(x)", b"h = self.proj(x)  # proj"),
        ),
        (
            "torch.utils.data is a module",
            BASE.replace(b"import torch\n", b"import torch\nimport torch.utils.data\n"),
        ),
        ("unrelated code change", BASE.replace(b"self.norm(h)", b"self.norm(h * 2)")),
        (
            "comment edited on a no_grad line",
            BASE.replace(b"with torch.no_grad():", b"with torch.no_grad():  # aux is frozen"),
        ),
    ],
)
def test_look_alikes_are_no_edit(name: str, head: bytes) -> None:
    assert edits(head) == [], name


def test_a_line_moved_to_another_file_is_no_edit() -> None:
    moved = BASE.replace(b"        self.backbone.requires_grad_(False)\n", b"")
    helper = b"def freeze(self):\n    self.backbone.requires_grad_(False)\n"
    found = gradient_edits([("models/encoder.py", BASE, moved), ("models/freeze.py", None, helper)])
    assert found == ()


def test_a_renamed_file_is_no_edit() -> None:
    found = gradient_edits([("models/encoder.py", BASE, None), ("models/enc.py", None, BASE)])
    assert found == ()


def test_a_second_identical_no_grad_block_names_the_file_that_gained_it() -> None:
    block = b"import torch\nwith torch.no_grad():\n    pass\n"
    found = gradient_edits([("a.py", block, block), ("b.py", b"x = 1\n", b"x = 1\n" + block)])
    assert found == (GradientEdit("b.py", 3, "torch.no_grad"),)


def test_a_side_that_does_not_parse_is_read_line_by_line_and_counts() -> None:
    broken = BASE.replace(b"return self.norm(h) + side", b"return self.norm(h) +")
    found = edits(broken)
    assert "models/encoder.py:7 +.detach()" in found  # the comment counts: can't tell otherwise


def test_files_whose_mentioning_lines_are_unchanged_need_no_parse() -> None:
    assert not needs_parse(BASE, BASE.replace(b"self.norm(h)", b"self.norm(h * 2)"))
    assert needs_parse(BASE, BASE.replace(b"self.proj(x)", b"self.proj(x).detach()"))
    assert needs_parse(None, BASE)
    assert not needs_parse(None, b"x = 1\n")


def test_classify_shares_one_read_for_comment_only_and_gradient_edits() -> None:
    comment_only = BASE.replace(b"would stop", b"stops")
    detached = BASE.replace(b"h = self.proj(x)", b"h = self.proj(x).detach()")
    result = classify([("a.py", BASE, comment_only), ("b.py", BASE, detached)])
    assert result.non_semantic == frozenset({"a.py"})
    assert result.gradient == (GradientEdit("b.py", 9, ".detach()"),)
    assert result.unscanned == ()


def test_classify_finds_edits_in_added_and_deleted_files() -> None:
    result = classify([("new.py", None, BASE), ("old.py", b"y = x.detach()\n", None)])
    assert [(e.path, e.construct, e.removed) for e in result.gradient] == [
        ("new.py", "torch.no_grad", False),
        ("new.py", ".requires_grad_()", False),
        ("new.py", "torch.set_grad_enabled", False),
        ("old.py", ".detach()", True),
    ]
