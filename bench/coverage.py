"""Benchmark: what recording the PR's changed lines costs the gradient check's steps.

The head child records which changed lines ran (``checks.model.child.coverage``). On Python
3.11 and older that is ``sys.settrace``, whose global function runs at every Python call (it
returns None for any other file than the changed ones). Measured here in-process, in CPU time
(the machine may be shared), on a small transformer whose steps are mostly Python dispatch, the
worst case for a tracer: forward/backward steps with the recorder off (the baseline), on for a
changed file the model never runs, and on for a changed line in the model's `forward` that never
runs (so that function stays traced at every step). Figure: the worst ratio to the baseline.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import torch
from gradgate.checks.model.child.coverage import recording

STEPS, ROUNDS = 10, 3
TARGET = 1.3  # at most 30% more CPU time on a model this small; real models spend more in ops
MODEL = """\
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(64, 4, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64))
        self.n1, self.n2 = nn.LayerNorm(64), nn.LayerNorm(64)

    def forward(self, x):
        h = self.n1(x)
        if h is None:
            raise ValueError("a branch the model never takes")
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.n2(x))
"""


def main() -> int:
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "bench_block.py").write_text(MODEL, encoding="utf-8")
        Path(folder, "unrelated.py").write_text("x = 1\n", encoding="utf-8")
        sys.path.insert(0, folder)
        from bench_block import Block  # type: ignore[import-not-found]

        torch.manual_seed(0)
        model, x = torch.nn.Sequential(*[Block() for _ in range(8)]), torch.randn(4, 16, 64)
        branch = next(n for n, line in enumerate(MODEL.splitlines(), 1) if "never" in line)
        cases = {
            "off (baseline)": None,
            "on, an unrelated file": {"unrelated.py": [[1, 1]]},
            "on, a never-run line in forward": {"bench_block.py": [[branch, branch]]},
        }
        best = {name: float("inf") for name in cases}
        losses: dict[str, float] = {}
        for _ in range(ROUNDS):  # interleaved: a load change hits every case alike
            for name, spans in cases.items():
                with recording(folder, spans):
                    started = time.process_time()
                    for _ in range(STEPS):
                        loss = model(x).square().mean()
                        loss.backward()
                    best[name] = min(best[name], time.process_time() - started)
                    losses[name] = loss.item()
        # The recorder must not change the work: every case computed the same loss.
        assert len(set(losses.values())) == 1, losses
    baseline = best["off (baseline)"]
    for name, seconds in best.items():
        print(f"{name:34} {seconds:7.3f} s CPU  {seconds / baseline:5.2f}x")
    worst = max(best.values()) / baseline
    ok = worst <= TARGET
    verdict = "ok" if ok else "MISSED"
    print(f"figure: coverage_step_overhead = {worst:.2f}x (target {TARGET}x) {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
