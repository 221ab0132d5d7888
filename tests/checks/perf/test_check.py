"""The perf check on real revisions: a tiny MLP committed in a real git repo, its training step
and inference timed at base and head in interleaved sandboxed children."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import CheckContext, CheckResult, Outcome, Severity
from gradgate.checks.model.spec import ModelSpec
from gradgate.checks.perf.check import PerfCheck
from gradgate.checks.perf.settings import PerfSettings

from tests.gitrepo import GitRepo

MODEL = """\
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, {hidden}), nn.ReLU(), nn.Linear({hidden}, 512))
    return model, torch.randn(512, 512)
"""
SETTINGS = PerfSettings(timeout_s=280.0, memory_mb=2048, device="cpu", rounds=3, warmup=1, steps=5)


def run(tmp_path: Path, base: str, head: str, settings: PerfSettings = SETTINGS) -> CheckResult:
    repo = GitRepo(tmp_path)
    repo.write("model.py", base)
    base_sha = repo.commit("base")
    repo.write("model.py", head)
    head_sha = repo.commit("head")
    ctx = CheckContext(
        base_sha=base_sha,
        head_sha=head_sha,
        changes=(),
        source=GitRepository(repo.root),
        settings=settings,
        python=sys.executable,
        model=ModelSpec(entrypoint="model.py:build"),
    )
    return PerfCheck().run(ctx)


def test_a_four_times_wider_hidden_layer_blocks(tmp_path: Path) -> None:
    result = run(tmp_path, MODEL.format(hidden=1024), MODEL.format(hidden=4096))

    assert result.outcome is Outcome.FAIL, result.findings
    blocking = [f for f in result.findings if f.severity is Severity.BLOCKING]
    assert blocking[0].message.startswith("training step time at head is ")
    assert "the whole interval is above `max_slowdown` (1.15×)" in blocking[0].message
    assert result.extra["clock"] == "perf_counter"  # the CPU's clock, chosen by the device


# The issue asks for 10 runs; each starts 6 children (about a minute on a busy 2-core machine),
# so the suite runs 2 and GRADGATE_TEST_PERF_RUNS=10 runs all of them.
UNCHANGED_RUNS = int(os.environ.get("GRADGATE_TEST_PERF_RUNS", "2"))


@pytest.mark.parametrize("attempt", range(UNCHANGED_RUNS))
def test_unchanged_code_never_blocks(tmp_path: Path, attempt: int) -> None:
    same = MODEL.format(hidden=512)

    result = run(tmp_path, same, same + f"\n# attempt {attempt}\n")

    assert result.outcome is Outcome.PASS, result.findings
    assert {f.kind for f in result.findings} <= {"perf-ratio", "perf-noisy"}


def test_a_model_that_crashes_at_head_is_an_error_naming_head(tmp_path: Path) -> None:
    broken = MODEL.format(hidden=512).replace("torch.manual_seed(0)", "raise ValueError('bad')")

    result = run(tmp_path, MODEL.format(hidden=512), broken)

    assert result.outcome is Outcome.ERROR
    assert result.findings[0].revision == "head"
