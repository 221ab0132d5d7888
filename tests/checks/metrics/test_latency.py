"""`measure: latency`: gradgate times the model's inference at base and head itself, and the
rules hold its p50 and p95 like any other metric."""

from __future__ import annotations

import sys
from pathlib import Path

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.context import CheckContext
from gradgate.checks.metrics.check import MetricsCheck
from gradgate.checks.metrics.latency import percentile, summarise
from gradgate.checks.metrics.settings import LatencySettings, MetricsSettings
from gradgate.checks.model.spec import ModelSpec

from tests.gitrepo import GitRepo

MODEL = """\
import time

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(16, 2)

    def forward(self, x):
        time.sleep({pause})
        return self.layer(x)


def build():
    return Net(), torch.randn(4, 16)
"""


def test_a_head_whose_inference_takes_250_ms_fails_a_200_ms_p95_rule(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path)
    base_sha, head_sha = repo.pull_request(
        {"model.py": MODEL.format(pause=0)}, {"model.py": MODEL.format(pause=0.25)}
    )
    settings = MetricsSettings(
        measure="latency",
        rules={"latency_ms_p95": "<= 200"},
        latency=LatencySettings(runs=5, warmup=1, rounds=2),
        device="cpu",
        timeout_s=280.0,
        memory_mb=2048,
    )  # no entrypoint: the measured numbers are the only ones ruled
    ctx = CheckContext(
        base_sha=base_sha,
        head_sha=head_sha,
        changes=(),
        source=GitRepository(repo.root),
        settings=settings,
        python=sys.executable,
        model=ModelSpec(entrypoint="model.py:build"),
    )

    result = MetricsCheck().run(ctx)

    assert result.outcome is Outcome.FAIL, result.findings
    assert result.findings[0].severity is Severity.BLOCKING
    assert result.findings[0].message == (
        "`latency_ms_p95` fails its rule `<= 200` at head (it held at base)"
    )
    rows = {row["metric"]: row for row in result.extra["rows"]}
    assert rows["latency_ms_p95"]["base"] < 200 <= 250 <= rows["latency_ms_p95"]["head"]
    assert rows["latency_ms_p50"]["rule"] is None  # shown, not judged


def test_p50_and_p95_are_nearest_rank_percentiles_in_milliseconds() -> None:
    seconds = [i / 1000 for i in range(1, 101)]  # 1 ms .. 100 ms

    assert summarise(seconds) == {"latency_ms_p50": 50.0, "latency_ms_p95": 95.0}
    assert percentile([0.2], 0.95) == 0.2
