"""The behaviour check on real revisions: each breakage of the corpus (bench/_behaviour_models.py)
blocked at the line that changed (an init change warned), each look-alike refactor passed, a
model random by design in eval not reported, and a variant's opt-out honoured."""

from __future__ import annotations

import pytest
from gradgate.checks.base import Finding, Outcome, Severity
from gradgate.checks.behaviour.settings import VariantSettings

from bench._behaviour_models import BLOCKING, CHANGES, MODELS, REFACTOR, WARNING, Change, Model
from tests.checks.behaviour.rig import SETTINGS, run_change, run_model
from tests.gitrepo import GitRepo

BREAKAGES = [c for c in CHANGES if c.kind != REFACTOR]
REFACTORS = [c for c in CHANGES if c.kind == REFACTOR]


def _at_line(findings: tuple[Finding, ...], change: Change) -> list[Finding]:
    path = MODELS[change.model].path
    return [f for f in findings if (f.file, f.line) == (path, change.line())]


@pytest.mark.parametrize("change", BREAKAGES, ids=[c.name for c in BREAKAGES])
def test_a_breakage_is_reported_at_the_line_that_changed(repo: GitRepo, change: Change) -> None:
    result = run_change(repo, change)
    severity = {BLOCKING: Severity.BLOCKING, WARNING: Severity.WARNING}[str(change.expect)]
    assert result.outcome is (Outcome.FAIL if severity is Severity.BLOCKING else Outcome.WARN)
    found = [f for f in result.findings if f.severity is severity]
    assert found, result.findings
    assert _at_line(tuple(found), change), [(f.kind, f.file, f.line) for f in found]
    # The module where it starts is named, not only "the output differs".
    assert all("`" in f.message for f in found)


@pytest.mark.parametrize("change", REFACTORS, ids=[c.name for c in REFACTORS])
def test_a_refactor_that_keeps_the_semantics_passes(repo: GitRepo, change: Change) -> None:
    result = run_change(repo, change)
    assert result.outcome is Outcome.PASS, [(f.kind, f.message) for f in result.findings]
    assert result.findings == ()


DIFFUSION = """\
import torch
from torch import nn


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(9, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, x):
        t = torch.rand(x.shape[0], 1)  # a random timestep, in train and in eval
        noisy = x + t * torch.randn_like(x)
        return self.net(torch.cat([noisy, t], dim=1))


def build():
    torch.manual_seed(0)
    return Denoiser(), torch.randn(4, 8)
"""


def test_a_model_random_by_design_in_eval_is_not_reported(repo: GitRepo) -> None:
    """Random at both revisions, and every forward seeded alike at both: a refactor passes."""
    model = Model("diffusion", "denoiser.py", DIFFUSION, "denoiser.py:build")
    noise = "noise = torch.randn_like(x)\n        noisy = x + t * noise"
    result = run_model(repo, model, DIFFUSION.replace("noisy = x + t * torch.randn_like(x)", noise))
    assert result.outcome is Outcome.PASS, [(f.kind, f.message) for f in result.findings]
    assert result.findings == ()


def test_a_variant_that_opts_out_of_causality_is_not_probed_for_it(repo: GitRepo) -> None:
    (change,) = [c for c in CHANGES if c.name == "gpt-causal-mask-dropped"]
    skip = VariantSettings(skip=("causality",))
    settings = SETTINGS.model_copy(update={"variants": {"default": skip}})
    result = run_change(repo, change, settings)
    kinds = [(f.kind, f.message.split(":")[0]) for f in result.findings]
    assert ("behaviour-causality", "In variant `dropout`") in kinds
    assert ("behaviour-causality", "In variant `default`") not in kinds
    assert ("behaviour-output-changed", "In variant `default`") in kinds  # same weights still
