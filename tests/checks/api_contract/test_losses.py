"""Asymmetric torch loss calls: found through imports and instances, judged by names (pure)."""

from __future__ import annotations

import ast

import pytest
from gradgate.checks.api_contract.calls import module_calls
from gradgate.checks.api_contract.losses import (
    LossCall,
    loss_calls,
    role,
    swapped_by_name,
    swapped_from,
)


def losses_in(source: str, path: str = "train.py") -> list[LossCall]:
    return loss_calls(module_calls(ast.parse(source), path))


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("logits", "prediction"),
        ("y_pred", "prediction"),
        ("yHat", "prediction"),
        ("outputs.logits", "prediction"),
        ("model(x)", "prediction"),
        ("self.classifier(h)", "prediction"),
        ("F.log_softmax(z, dim=-1)", "prediction"),
        ("student_out", "prediction"),
        ("targets", "target"),
        ("y", "target"),
        ("y_true", "target"),
        ("batch['labels']", "target"),
        ("gt_mask", "target"),
        ("labels.long()", "target"),
        ("targets.view(-1)", "target"),
        ("F.one_hot(c, 10)", "target"),
        ("teacher_probs", None),  # prob says prediction, teacher says target: can't tell
        ("target_logits", None),
        ("x", None),
        ("h", None),
        ("self.proj(x)", None),
        ("pos_emb", "positive"),
        ("negatives", "negative"),
    ],
)
def test_what_an_argument_says_it_is(code: str, expected: str | None) -> None:
    expr = ast.parse(code, mode="eval").body
    assert role(expr) == expected


@pytest.mark.parametrize(
    "source",
    [
        "import torch.nn.functional as F\nF.cross_entropy(targets, logits)\n",
        "from torch.nn import functional as F\nF.nll_loss(y, log_probs)\n",
        "from torch.nn.functional import cross_entropy\ncross_entropy(labels, out)\n",
        "import torch\ntorch.nn.functional.binary_cross_entropy_with_logits(y, logits)\n",
        "from torch import nn\nnn.functional.kl_div(teacher, student_log_probs)\n",
        "import torch.nn as nn\ncrit = nn.CrossEntropyLoss()\nloss = crit(targets, logits)\n",
        "import torch.nn as nn\nloss = nn.BCEWithLogitsLoss(reduction='sum')(y, logits)\n",
        "import torch.nn as nn\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.criterion = nn.NLLLoss()\n"
        "    def step(self, y, log_probs):\n"
        "        return self.criterion(y, log_probs)\n",
        "import torch.nn.functional as F\nF.cross_entropy(input=labels, target=logits)\n",
        "import torch.nn.functional as F\nF.triplet_margin_loss(a, neg, pos)\n",
        "import torch.nn.functional as F\nF.margin_ranking_loss(s1, targets, scores)\n",
    ],
)
def test_swapped_by_name_through_imports_and_instances(source: str) -> None:
    (call,) = losses_in(source)
    assert swapped_by_name(call) is not None


@pytest.mark.parametrize(
    "source",
    [
        "import torch.nn.functional as F\nF.cross_entropy(logits, targets)\n",
        "import torch.nn.functional as F\nF.cross_entropy(logits, y, weight=w)\n",
        "import torch.nn.functional as F\nF.cross_entropy(target=labels, input=logits)\n",
        "import torch.nn.functional as F\nF.cross_entropy(x, y)\n",  # x says nothing
        "import torch.nn as nn\ncrit = nn.CrossEntropyLoss()\ncrit(model(x), y)\n",
        "import torch.nn.functional as F\nF.cosine_embedding_loss(e2, e1, targets)\n",
    ],
)
def test_right_or_unknown_order_is_not_swapped(source: str) -> None:
    (call,) = losses_in(source)
    assert swapped_by_name(call) is None


@pytest.mark.parametrize(
    "source",
    [
        "import torch.nn.functional as F\nF.mse_loss(target, pred)\n",
        "import torch.nn.functional as F\nF.l1_loss(y, y_hat)\n",
        "import torch.nn.functional as F\nF.smooth_l1_loss(targets, outputs)\n",
        "import torch.nn as nn\nnn.MSELoss()(targets, logits)\n",
        "def cross_entropy(a, b):\n    pass\ncross_entropy(targets, logits)\n",  # not torch's
        "import mylib as F\nF.cross_entropy(targets, logits)\n",
    ],
)
def test_symmetric_losses_and_other_functions_are_not_loss_calls(source: str) -> None:
    assert losses_in(source) == []


def test_swapped_relative_to_base_even_when_names_say_nothing() -> None:
    base = losses_in("import torch.nn.functional as F\nF.nll_loss(a, b)\n")
    head = losses_in("import torch.nn.functional as F\nF.nll_loss(b, a)\n")
    before = {c.key for c in base}
    assert swapped_from(head[0], before) == (0, 1)
    assert swapped_from(base[0], before) is None  # the same call: not swapped


def test_exchanging_interchangeable_inputs_is_not_a_swap() -> None:
    base = losses_in("import torch.nn.functional as F\nF.cosine_embedding_loss(a, b, t)\n")
    head = losses_in("import torch.nn.functional as F\nF.cosine_embedding_loss(b, a, t)\n")
    assert swapped_from(head[0], {c.key for c in base}) is None
    ranked = losses_in("import torch.nn.functional as F\nF.margin_ranking_loss(b, a, t)\n")
    base_ranked = losses_in("import torch.nn.functional as F\nF.margin_ranking_loss(a, b, t)\n")
    assert swapped_from(ranked[0], {c.key for c in base_ranked}) == (0, 1)
