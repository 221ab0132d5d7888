"""The perf check on real revisions: a tiny MLP committed in a real git repo, its training step
and inference timed at base and head in interleaved sandboxed children."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from gradgate.checks.base import CheckResult, Outcome
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
SETTINGS = PerfSettings(timeout_s=280.0, memory_mb=2048, device="cpu", rounds=3, warmup=2, steps=15)


def run(tmp_path: Path, base: str, head: str, settings: PerfSettings = SETTINGS) -> CheckResult:
    spec = ModelSpec(entrypoint="model.py:build")
    pr = GitRepo(tmp_path).pull_request_context(
        {"model.py": base}, {"model.py": head}, settings,
        changes=(), python=sys.executable, model=spec,
    )  # fmt: skip
    with pr as ctx:
        return PerfCheck().run(ctx)


def test_a_four_times_wider_hidden_layer_blocks_on_peak_memory(tmp_path: Path) -> None:
    result = run(tmp_path, MODEL.format(hidden=1024), MODEL.format(hidden=4096))

    assert result.outcome is Outcome.FAIL, result.findings
    growth = next(f for f in result.findings if f.kind == "perf-memory-growth")
    assert growth.message.startswith("peak memory at head is ")
    assert "above `max_memory_growth` (1.1×)" in growth.message
    assert result.extra["memory"] == "tensor-peak"  # the CPU's meter, chosen by the device
    # Tensors are counted exactly: the same ratio in every round (on a busy machine too).
    memory = next(row for row in result.extra["rows"] if row["measure"] == "peak memory")
    assert memory["low"] == memory["high"] > 3


SLEEPY = """\
import time

import torch
from torch import nn


class Pause(nn.Module):
    def forward(self, x):
        time.sleep({pause})
        return x


def build():
    torch.manual_seed(0)
    model = nn.Sequential()
    model.add_module("embed", nn.Linear(16, 16))
    model.add_module("pause", Pause())
    model.add_module("out", nn.Linear(16, 16))
    return model, torch.randn(8, 16)
"""


def test_a_module_that_sleeps_blocks_with_samples_per_second_and_is_charted(
    tmp_path: Path,
) -> None:
    # 60 ms a forward at head against microseconds at base: no busy neighbour closes that gap.
    result = run(tmp_path, SLEEPY.format(pause=0), SLEEPY.format(pause=0.06))

    assert result.outcome is Outcome.FAIL, result.findings
    slower = [f for f in result.findings if f.kind == "perf-slower"]
    assert [f.message.split(" time")[0] for f in slower] == ["training step", "inference"]
    assert "the whole interval is above `max_slowdown` (1.15×)" in slower[0].message
    assert result.extra["clock"] == "perf_counter"  # the CPU's clock, chosen by the device
    rates = re.search(r"([\d,]+) → ([\d,]+) samples/s", slower[0].message)
    assert rates is not None  # 8 samples a step
    assert int(rates[1].replace(",", "")) > int(rates[2].replace(",", ""))
    chart = result.extra["modules"]
    assert chart["names"] == ["pause"]
    assert chart["head_ms"][0] >= 60 > chart["base_ms"][0]


# The issue asks for 10 runs; each starts 6 children (about a minute on a busy 2-core machine),
# so the suite runs 2 and GRADGATE_TEST_PERF_RUNS=10 runs all of them.
UNCHANGED_RUNS = int(os.environ.get("GRADGATE_TEST_PERF_RUNS", "2"))


@pytest.mark.parametrize("attempt", range(UNCHANGED_RUNS))
def test_unchanged_code_never_blocks(tmp_path: Path, attempt: int) -> None:
    same = MODEL.format(hidden=512)

    result = run(tmp_path, same, same + f"\n# attempt {attempt}\n")

    assert result.outcome is Outcome.PASS, result.findings
    assert {f.kind for f in result.findings} <= {"perf-ratio", "perf-noisy"}
    memory = next(row for row in result.extra["rows"] if row["measure"] == "peak memory")
    assert (memory["ratio"], memory["verdict"]) == (1.0, "ok")  # tensors are counted exactly


STEPPED = """\
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    model = nn.Linear(256, 256)
    optimizer = torch.optim.Adam(model.parameters())

    def step(model, batch):
        for _ in range({micro}):
            model(batch).square().mean().backward()
        optimizer.step()
        optimizer.zero_grad()

    return {{"model": model, "inputs": torch.randn(256, 256), "step": step}}
"""


def test_the_factorys_own_step_is_timed_and_twenty_times_its_work_blocks(tmp_path: Path) -> None:
    result = run(tmp_path, STEPPED.format(micro=1), STEPPED.format(micro=20))

    assert result.outcome is Outcome.FAIL, result.findings
    assert result.extra["step"] == "user"
    kinds = {(f.kind, f.message.split(" time")[0]) for f in result.findings}
    assert ("perf-slower", "training step") in kinds
    assert ("perf-slower", "inference") not in kinds  # the forward alone did not change


def test_a_step_that_is_not_callable_is_an_error_naming_step(tmp_path: Path) -> None:
    bad = STEPPED.format(micro=1).replace('"step": step', '"step": 3')

    result = run(tmp_path, STEPPED.format(micro=1), bad)

    assert result.outcome is Outcome.ERROR
    assert result.findings[0].revision == "head"
    assert "returned int as `step`; it must be a callable" in result.findings[0].message


def test_a_model_that_crashes_at_head_is_an_error_naming_head(tmp_path: Path) -> None:
    broken = MODEL.format(hidden=512).replace("torch.manual_seed(0)", "raise ValueError('bad')")

    result = run(tmp_path, MODEL.format(hidden=512), broken)

    assert result.outcome is Outcome.ERROR
    assert result.findings[0].revision == "head"
