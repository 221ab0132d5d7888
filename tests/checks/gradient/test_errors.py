"""When a revision cannot be measured, the gradient check is an error naming the revision and
what happened; never a pass, never a traceback of gradgate's own."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import torch
from gradgate.checks.base import CheckResult, Outcome, Severity
from gradgate.checks.gradient.check import GradientCheck
from gradgate.checks.gradient.settings import GradientSettings

from tests.checks.gradient.revisions import PRELUDE, SETTINGS, commit_two
from tests.gitrepo import GitRepo

GOOD = (
    PRELUDE
    + """

def build():
    torch.manual_seed(0)
    return nn.Linear(4, 2), torch.randn(3, 4)
"""
)


def failed(
    tmp_path: Path, base: str, head: str = GOOD, settings: GradientSettings = SETTINGS
) -> tuple[CheckResult, str]:
    result = commit_two(GitRepo(tmp_path), {"model.py": base}, {"model.py": head}).check(settings)
    assert result.outcome is Outcome.ERROR
    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("gradient-error", Severity.BLOCKING)
    assert finding.revision is not None
    assert result.summary == finding.message
    return result, finding.message + "\n" + (finding.details or "")


def test_a_factory_that_cannot_be_imported_at_head_is_an_error_naming_head(tmp_path: Path) -> None:
    broken = "import torch_plugins_nobody_installed\n" + GOOD

    result, said = failed(tmp_path, GOOD, broken)

    assert result.findings[0].revision == "head"
    assert said.startswith(
        "`model.py:build` at head: importing `model.py` raised ModuleNotFoundError: "
        "No module named 'torch_plugins_nobody_installed'"
    )


def test_a_factory_that_raises_is_an_error_with_the_users_traceback(tmp_path: Path) -> None:
    raising = GOOD.replace(
        "    torch.manual_seed(0)\n", "    raise ValueError('n_embd must be divisible by n_head')\n"
    )

    result, said = failed(tmp_path, raising)

    assert result.findings[0].revision == "base"
    assert said.startswith(
        "`model.py:build` at base raised ValueError: n_embd must be divisible by n_head"
    )
    assert "\n  model.py:" in said  # the user's frame, in the details


def test_when_both_revisions_fail_the_error_names_base_whose_failure_came_first(
    tmp_path: Path,
) -> None:
    # Base and head may run at once; the report still tells the base's story first.
    raising = GOOD.replace("    torch.manual_seed(0)\n", "    raise ValueError('base broke')\n")
    broken = "import torch_plugins_nobody_installed\n" + GOOD

    result, said = failed(tmp_path, raising, broken)

    assert result.findings[0].revision == "base"
    assert said.startswith("`model.py:build` at base raised ValueError: base broke")


def test_a_factory_that_returns_the_wrong_type_says_what_it_must_return(tmp_path: Path) -> None:
    _, said = failed(
        tmp_path, GOOD.replace("return nn.Linear(4, 2), torch.randn(3, 4)", "return 'gpt2'")
    )

    assert said.startswith(
        "`model.py:build` at base returned str; a model factory returns an `nn.Module`, "
        "`(model, inputs)`, or a mapping with `model`, `inputs` and optionally `loss`, or a "
        "mapping of named variants (`{'default': ..., 'flash': ...}`), each one of those."
    )


def test_a_model_that_hangs_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    hangs = (
        PRELUDE
        + """

class Spin(nn.Linear):
    def forward(self, x):
        while True:
            pass


def build():
    return Spin(4, 2), torch.randn(3, 4)
"""
    )
    settings = SETTINGS.model_copy(update={"timeout_s": 4.0})

    started = time.monotonic()
    _, said = failed(tmp_path, hangs, settings=settings)
    took = time.monotonic() - started  # the pipeline times checks; a check run alone, here

    # The check's one budget: base gets what is left of it after the checkout.
    assert re.match(
        r"`model.py:build` at base did not finish within [34](\.\d)? s; it was stopped", said
    )
    assert took < 4.0 + 5.0


def test_a_model_that_allocates_without_bound_hits_the_memory_cap(tmp_path: Path) -> None:
    greedy = (
        PRELUDE
        + """

def build():
    hoard = []
    while True:
        hoard.append(torch.ones(1 << 24))  # 64 MB at a time
"""
    )
    settings = SETTINGS.model_copy(update={"memory_mb": 1024})

    _, said = failed(tmp_path, greedy, settings=settings)

    assert said.startswith("`model.py:build` at base ran out of memory (limit 1024 MB)")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_device_cuda_without_cuda_is_an_error_not_a_cpu_run(tmp_path: Path) -> None:
    settings = SETTINGS.model_copy(update={"device": "cuda"})

    _, said = failed(tmp_path, GOOD, settings=settings)

    assert said.startswith("`model.py:build` at base: `device: cuda`, but torch ")
    assert "cannot use CUDA on this machine" in said


def test_without_a_model_block_the_check_cannot_run_and_says_what_to_add(tmp_path: Path) -> None:
    revisions = commit_two(GitRepo(tmp_path), {"model.py": GOOD}, {"model.py": GOOD})
    ctx = revisions.context()
    ctx = type(ctx)(**{**{f: getattr(ctx, f) for f in ctx.__dataclass_fields__}, "model": None})

    result = GradientCheck().run(ctx)

    # An error result like any other (it propagated as a bare CheckError before issue 38).
    assert result.outcome is Outcome.ERROR
    assert result.summary.startswith("`gradient` needs your model, and .gradgate.yml has no")
    (finding,) = result.findings
    assert (finding.kind, finding.revision) == ("gradient-error", None)
