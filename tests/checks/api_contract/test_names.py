"""The `api-contract` check follows names: aliases, `import ... as`, `functools.partial`, losses
kept on `self`, and methods called on instances of the repository's own classes (issue 19)."""

from __future__ import annotations

import pytest
from gradgate.checks.base import Outcome, Severity

from tests.checks.api_contract.test_check import (
    LOSSES,
    REORDERED,
    kinds,
    line_of,
    only,
    pull_request,
)
from tests.gitrepo import GitRepo

# --- asymmetric torch losses called through another name ------------------------------------

ALIASES = {
    "module-alias": """\
import torch.nn.functional as F

loss_fn = F.cross_entropy


def step(model, x, labels):
    logits = model(x)
    return loss_fn(logits, labels)
""",
    "local-alias": """\
import torch.nn.functional as F


def step(model, x, labels):
    logits = model(x)
    loss_fn = F.cross_entropy
    return loss_fn(logits, labels)
""",
    "import-as": """\
import torch.nn.functional as nnf


def step(model, x, labels):
    logits = model(x)
    return nnf.cross_entropy(logits, labels)
""",
    "from-import-as": """\
from torch.nn.functional import cross_entropy as ce


def step(model, x, labels):
    logits = model(x)
    return ce(logits, labels)
""",
    "functools-partial": """\
import functools

import torch.nn.functional as F

loss_fn = functools.partial(F.cross_entropy, label_smoothing=0.1)


def step(model, x, labels):
    logits = model(x)
    return loss_fn(logits, labels)
""",
    "from-functools-partial": """\
from functools import partial

from torch.nn import functional as F


def step(model, x, labels):
    loss_fn = partial(F.cross_entropy, ignore_index=-1)
    logits = model(x)
    return loss_fn(logits, labels)
""",
    "loss-instance-on-self": """\
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()

    def step(self, x, labels):
        logits = self.model(x)
        return self.criterion(logits, labels)
""",
    "loss-function-on-self": """\
import torch.nn.functional as F


class Trainer:
    def __init__(self, model):
        self.model = model
        self.loss_fn = F.cross_entropy

    def step(self, x, labels):
        logits = self.model(x)
        return self.loss_fn(logits, labels)
""",
    "class-attribute": """\
import torch.nn as nn


class Trainer:
    criterion = nn.NLLLoss()

    def step(self, logits, labels):
        return self.criterion(logits, labels)
""",
    "loss-class-alias": """\
from torch import nn

Criterion = nn.CrossEntropyLoss


def step(model, x, labels):
    crit = Criterion(reduction="sum")
    logits = model(x)
    return crit(logits, labels)
""",
}


@pytest.mark.parametrize("base", list(ALIASES.values()), ids=list(ALIASES))
def test_a_loss_called_through_another_name_with_swapped_arguments_blocks(
    repo: GitRepo, base: str
) -> None:
    head = base.replace("(logits, labels)", "(labels, logits)")
    result = pull_request(repo, {"train.py": base}, {"train.py": head}, zone=())
    finding = only(result, "loss-arguments-swapped")
    assert finding.severity is Severity.BLOCKING
    assert finding.line == line_of(head, "(labels, logits)")
    assert "Exchange `labels` and `logits`" in finding.message


def test_an_aliased_loss_names_what_it_stands_for(repo: GitRepo) -> None:
    base = ALIASES["module-alias"]
    head = base.replace("(logits, labels)", "(labels, logits)")
    finding = only(
        pull_request(repo, {"train.py": base}, {"train.py": head}, zone=()),
        "loss-arguments-swapped",
    )
    assert finding.message.startswith(
        "`loss_fn(labels, logits)`: the arguments of `F.cross_entropy`"
    )


def test_a_partial_that_binds_the_prediction_shifts_the_call_s_arguments(repo: GitRepo) -> None:
    # `partial(F.cross_entropy, logits)` then `loss_fn(labels)`: the labels are the target.
    base = """\
import functools
import torch.nn.functional as F


def step(logits, labels):
    loss_fn = functools.partial(F.cross_entropy, logits)
    return loss_fn(labels)
"""
    result = pull_request(repo, {"train.py": base}, {"train.py": base + "\n"}, zone=())
    assert result.findings == ()


def test_a_local_alias_does_not_reach_a_parameter_of_the_same_name(repo: GitRepo) -> None:
    base = """\
import torch.nn.functional as F


def make():
    loss_fn = F.cross_entropy
    return loss_fn


def step(loss_fn, labels, logits):
    return loss_fn(logits, labels)
"""
    head = base.replace("loss_fn(logits, labels)", "loss_fn(labels, logits)")
    result = pull_request(repo, {"train.py": base}, {"train.py": head}, zone=())
    assert result.findings == () and result.outcome is Outcome.PASS


# --- the repository's own functions through another name ------------------------------------

ALIASED_CALLERS = {
    "alias": "from pkg import losses\n\nmine = losses.loss\n\n\ndef f(y, out):\n"
    "    return mine(y, out)\n",
    "local-alias": "from pkg.losses import loss\n\n\ndef f(y, out):\n    fn = loss\n"
    "    return fn(y, out)\n",
    "partial": "from functools import partial\n\nfrom pkg.losses import loss\n\n"
    "heavy = partial(loss, weight=2.0)\n\n\ndef f(y, out):\n    return heavy(y, out)\n",
    "import-as": "import pkg.losses as L\n\n\ndef f(y, out):\n    return L.loss(y, out)\n",
}


@pytest.mark.parametrize("user", list(ALIASED_CALLERS.values()), ids=list(ALIASED_CALLERS))
def test_a_reorder_reaches_calls_through_aliases_and_partials(repo: GitRepo, user: str) -> None:
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/user.py": user},
        {"pkg/losses.py": REORDERED},
    )
    finding = only(result, "signature-reordered")
    assert finding.severity is Severity.BLOCKING
    assert finding.details is not None
    assert finding.details.startswith(f"pkg/user.py:{line_of(user, 'return')}:")
    assert "`y` went to `targets`, now goes to `preds`" in finding.details


# --- methods called on instances of the repository's classes --------------------------------

GPT = """\
import torch.nn as nn


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config

    @classmethod
    def from_pretrained(cls, name):
        return cls(name)

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        return (weight_decay, learning_rate, betas)
"""
GPT_HEAD = GPT.replace("learning_rate, betas):", "learning_rate, betas, device_type):").replace(
    "betas)\n", "betas, device_type)\n"
)

BENCH = """\
import torch

from model import GPT

model = GPT(dict(n_layer=2))
model.to("cpu")
optimizer = model.configure_optimizers(weight_decay=1e-2, learning_rate=1e-4, betas=(0.9, 0.95))
model = torch.compile(model)
"""


def gpt_pr(repo: GitRepo, users: dict[str, str]) -> tuple[str, ...]:
    """The real case: `GPT.configure_optimizers` gets a new required parameter; ``users`` call
    it. Returns the call sites listed, as `path:line`."""
    result = pull_request(
        repo, {"model.py": GPT, **users}, {"model.py": GPT_HEAD}, zone=("model.py",)
    )
    finding = only(result, "parameter-required")
    assert "`device_type`" in finding.message
    assert finding.severity is Severity.BLOCKING  # known, not merely probable
    if finding.details is None:
        return ()
    return tuple(line.split(": ")[0] for line in finding.details.splitlines() if ".py:" in line)


def test_a_new_required_parameter_blocks_a_method_call_on_an_instance(repo: GitRepo) -> None:
    result = pull_request(
        repo, {"model.py": GPT, "bench.py": BENCH}, {"model.py": GPT_HEAD}, zone=("model.py",)
    )
    finding = only(result, "parameter-required")
    assert finding.severity is Severity.BLOCKING and result.outcome is Outcome.FAIL
    assert finding.details is not None
    assert f"bench.py:{line_of(BENCH, 'configure_optimizers')}" in finding.message
    assert "does not pass `device_type`, now required" in finding.details
    assert "or give the new parameter a default. If this change is intended" in finding.message


RECEIVERS = {
    "from-classmethod": """\
from model import GPT


def main(name):
    model = GPT.from_pretrained(name)
    model = model.to("cuda")
    return model.configure_optimizers(0.1, 3e-4, (0.9, 0.95))
""",
    "both-branches": """\
from model import GPT


def main(resume, config):
    if resume:
        model = GPT.from_pretrained("gpt2")
    else:
        model = GPT(config)
    return model.configure_optimizers(0.1, 3e-4, (0.9, 0.95))
""",
    "annotated-parameter": """\
from __future__ import annotations

import model as m


def train(net: m.GPT | None, lr: float):
    return net.configure_optimizers(0.1, lr, (0.9, 0.95))
""",
    "string-annotation": """\
def train(net: "GPT", lr):
    return net.configure_optimizers(0.1, lr, (0.9, 0.95))


from model import GPT
""",
    "attribute-on-self": """\
from model import GPT


class Trainer:
    def __init__(self, config):
        self.model = GPT(config)

    def optimizers(self):
        return self.model.configure_optimizers(0.1, 3e-4, (0.9, 0.95))
""",
    "annotated-attribute": """\
from model import GPT


class Trainer:
    def __init__(self, model: GPT):
        self.model = model

    def optimizers(self):
        return self.model.configure_optimizers(0.1, 3e-4, (0.9, 0.95))
""",
    "super-call": """\
from model import GPT


class Tuned(GPT):
    def optimizers(self, wd):
        return super().configure_optimizers(wd, 3e-4, (0.9, 0.95))
""",
    "subclass-instance": """\
from model import GPT


class Tuned(GPT):
    pass


def main(config):
    model = Tuned(config)
    return model.configure_optimizers(0.1, 3e-4, (0.9, 0.95))
""",
    "method-through-self": """\
from model import GPT


class Tuned(GPT):
    def optimizers(self):
        return self.configure_optimizers(0.1, 3e-4, (0.9, 0.95))
""",
}


@pytest.mark.parametrize("user", list(RECEIVERS.values()), ids=list(RECEIVERS))
def test_the_receiver_of_a_method_call_is_resolved_to_the_repo_class(
    repo: GitRepo, user: str
) -> None:
    assert gpt_pr(repo, {"user.py": user}) == (
        f"user.py:{line_of(user, '.configure_optimizers(')}",
    )


def test_a_receiver_of_unknown_type_is_probably_affected_when_the_method_name_is_unique(
    repo: GitRepo,
) -> None:
    user = "def run(model):\n    return model.configure_optimizers(0.1, 3e-4, (0.9, 0.95))\n"
    result = pull_request(
        repo, {"model.py": GPT, "user.py": user}, {"model.py": GPT_HEAD}, zone=("model.py",)
    )
    finding = only(result, "parameter-required")
    assert finding.severity is Severity.WARNING and result.outcome is Outcome.WARN
    assert "probably affected" in finding.message and "`user.py:2`" in finding.message
    assert finding.details is not None and finding.details.startswith("user.py:2: ")


def test_a_known_call_blocks_and_an_unknown_receiver_is_listed_as_probable(repo: GitRepo) -> None:
    unknown = "def run(model):\n    return model.configure_optimizers(0.1, 3e-4, (0.9, 0.95))\n"
    result = pull_request(
        repo,
        {"model.py": GPT, "bench.py": BENCH, "user.py": unknown},
        {"model.py": GPT_HEAD},
        zone=("model.py",),
    )
    finding = only(result, "parameter-required")
    assert finding.severity is Severity.BLOCKING
    assert "1 more call site is probably affected: `user.py:2`" in finding.message


def test_an_unknown_receiver_is_not_listed_when_another_class_has_the_method(
    repo: GitRepo,
) -> None:
    other = "class Other:\n    def configure_optimizers(self, lr):\n        return lr\n"
    user = "def run(model):\n    return model.configure_optimizers(0.1, 3e-4, (0.9, 0.95))\n"
    result = pull_request(
        repo,
        {"model.py": GPT, "other.py": other, "user.py": user},
        {"model.py": GPT_HEAD},
        zone=("model.py",),
    )
    assert kinds(result) == [("parameter-required", "note")]
    assert "No call site in this repository is affected" in result.findings[0].message


def test_an_instance_of_another_class_is_not_a_call_site(repo: GitRepo) -> None:
    user = """\
import torch

from model import GPT

opt = torch.optim.AdamW([])
opt.configure_optimizers(1, 2, 3)
"""
    result = pull_request(
        repo, {"model.py": GPT, "user.py": user}, {"model.py": GPT_HEAD}, zone=("model.py",)
    )
    assert (
        "No call site in this repository is affected" in only(result, "parameter-required").message
    )
