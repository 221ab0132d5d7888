"""Benchmark: the perf check against bare children running the same measured steps.

The work: at base and at head, ``ROUNDS`` times, build the model and run the measured steps
(``WARMUP`` + ``STEPS`` training steps, forward, loss, backward, SGD; then as many inference
passes). The baseline: one fresh, unsandboxed Python process per revision and round
(interpreter start and torch import included) doing exactly that. The check runs as
`PerfCheck().run` in a fresh process on a two-commit git repo: a checkout per revision, a
sandboxed child per revision and round (which also times each top-level module and counts a
step's peak memory), and the judgement. Figure: wall time as a ratio to the bare children's.
The head revision's hidden layer is 4× wider, and the run checks that the check blocked it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._versus_bare import report, timed, two_revisions, versus_bare

RUNS = 2  # best of: the machine may be shared
TIME_TARGET = 1.3
ROUNDS, WARMUP, STEPS = 3, 2, 10

MODEL = """\
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, {hidden}), nn.ReLU(), nn.Linear({hidden}, 256))
    return model, torch.randn(256, 256)
"""
BARE = """\
import sys
import torch
sys.path.insert(0, sys.argv[1])
from model import build
model, x = build()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
model.train()
for _ in range(int(sys.argv[2])):
    model(x).square().mean().backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
model.eval()
with torch.no_grad():
    for _ in range(int(sys.argv[2])):
        model(x)
print("ok")
"""


def the_check(repo: Path, base: str, head: str) -> dict[str, Any]:
    """In this fresh process: the perf check on the two commits, as the pipeline runs it."""
    from gradgate.bot.git.repository import GitRepository
    from gradgate.checks.context import CheckContext
    from gradgate.checks.model.spec import ModelSpec
    from gradgate.checks.perf.check import PerfCheck
    from gradgate.checks.perf.settings import PerfSettings

    settings = PerfSettings(memory_mb=None, device="cpu", rounds=ROUNDS, warmup=WARMUP,
                            steps=STEPS)  # fmt: skip
    ctx = CheckContext(
        base_sha=base, head_sha=head, changes=(), source=GitRepository(repo), settings=settings,
        model=ModelSpec(entrypoint="model.py:build"), python=sys.executable,
    )  # fmt: skip
    result = PerfCheck().run(ctx)
    caught = any(f.kind in ("perf-slower", "perf-memory-growth") for f in result.findings)
    return {"outcome": str(result.outcome), "caught": caught, "summary": result.summary}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        print(json.dumps(the_check(Path(argv[1]), argv[2], argv[3])))
        return 0
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        folder = Path(tmp)
        base, head = two_revisions(
            folder, "model.py", MODEL.format(hidden=512), MODEL.format(hidden=2048)
        )
        steps = str(WARMUP + STEPS)

        def bare() -> float:  # a fresh process per revision and round, as the check's children
            runs = [
                timed([sys.executable, "-c", BARE, str(folder / rev), steps])
                for _ in range(ROUNDS)
                for rev in ("base", "head")
            ]
            # The same work as the check's children: every run got through all its steps.
            assert all(out.strip() == "ok" for _, out in runs), runs
            return sum(seconds for seconds, _ in runs)

        check = [sys.executable, "-m", "bench.perf", "--check", str(folder / "repo"), base, head]
        found = versus_bare(RUNS, bare, check)
    return report(
        "perf_time_vs_bare_children", TIME_TARGET, found,
        bare=f"{ROUNDS} rounds, one per revision each", check="perf check", runs=RUNS,
        missed="the check missed the 4× wider hidden layer",
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
