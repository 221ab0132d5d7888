"""Benchmark: the gradient check against a bare loop doing the same work, on a ~50M-parameter model.

The work: build the base and the head model and run ``steps`` forward/backward passes (and SGD
updates) on each, on the CPU. The baseline, a bare loop, does exactly that in one fresh Python
process (interpreter start and torch import included) with a cross-entropy loss. The check runs
as `GradientCheck().run` in a fresh process on a two-commit git repo of the same model: a git
worktree per revision, a sandboxed child per revision (each importing torch), the probe's hooks,
graph walk and norms, and the comparison. Figures: wall time and peak memory (of the measured
process and every process it starts, sandboxed children included, shared pages counted once,
sampled from /proc: bench/_memory.py) as ratios to the bare loop's. The head revision adds a stray
`.detach()`, and the run checks the check caught it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._memory import PeakSampler

ROOT = Path(__file__).resolve().parents[1]
STEPS = 2
RUNS = 2  # best of: the machine may be shared
TIME_TARGET, MEMORY_TARGET = 1.5, 1.3
VOCAB, WIDTH, LAYERS, HEADS, BATCH, TOKENS = 12288, 512, 12, 8, 4, 128

MODEL = f"""\
import torch
import torch.nn.functional as F
from torch import nn

VOCAB, WIDTH, LAYERS, HEADS, BATCH, TOKENS = {VOCAB}, {WIDTH}, {LAYERS}, {HEADS}, {BATCH}, {TOKENS}


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
        self.qkv, self.out = nn.Linear(WIDTH, 3 * WIDTH), nn.Linear(WIDTH, WIDTH)
        self.up, self.down = nn.Linear(WIDTH, 4 * WIDTH), nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(WIDTH, dim=-1)
        q, k, v = (z.view(b, t, HEADS, -1).transpose(1, 2) for z in (q, k, v))
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(attn.transpose(1, 2).reshape(b, t, WIDTH))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, WIDTH), nn.Embedding(TOKENS, WIDTH)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.norm, self.lm_head = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.norm(x))


def build():
    torch.manual_seed(0)
    return GPT(), torch.randint(0, VOCAB, (BATCH, TOKENS))
"""
# The head's regression: the last block's MLP output is cut from the graph.
HEAD = MODEL.replace(
    "        return x + self.down(F.gelu(self.up(self.norm2(x))))\n",
    "        h = self.down(F.gelu(self.up(self.norm2(x))))\n"
    "        return x + (h.detach() if self is GPT.last else h)\n",
).replace(
    "        self.norm, self.lm_head",
    "        GPT.last = self.blocks[-1]\n        self.norm, self.lm_head",
)
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)
    return done.stdout.decode().strip()


def build_repo(root: Path) -> tuple[str, str]:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "model.py").write_text(MODEL, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    (root / "model.py").write_text(HEAD, encoding="utf-8")
    git(root, "commit", "-q", "-am", "head")
    return base, git(root, "rev-parse", "HEAD")


def bare_loop(folder: Path) -> dict[str, Any]:
    """In this fresh process: each revision's model, STEPS forward/backward/SGD steps."""
    import importlib.util

    import torch
    import torch.nn.functional as F

    parameters: dict[str, int] = {}
    for revision in ("base", "head"):
        spec = importlib.util.spec_from_file_location(
            f"model_{revision}", folder / f"{revision}.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        model, ids = module.build()
        model.train()
        params = [p for p in model.parameters() if p.requires_grad]
        parameters[revision] = sum(p.numel() for p in params)
        for _ in range(STEPS):
            logits = model(ids)
            loss: Any = F.cross_entropy(logits.view(-1, logits.shape[-1]), ids.view(-1))
            loss.backward()
            with torch.no_grad():
                for p in params:
                    if p.grad is not None:
                        p.add_(p.grad, alpha=-1e-3)
                        p.grad = None
        del model, params, logits, loss
    return {"parameters": parameters}


def the_check(repo: Path, base: str, head: str) -> dict[str, Any]:
    """In this fresh process: the gradient check on the two commits, as the pipeline runs it."""
    from gradgate.bot.git.repository import GitRepository
    from gradgate.checks.context import CheckContext
    from gradgate.checks.gradient.check import GradientCheck
    from gradgate.checks.gradient.settings import GradientSettings
    from gradgate.checks.model.spec import ModelSpec

    settings = GradientSettings(device="cpu", steps=STEPS, memory_mb=None, timeout_s=3600.0)
    ctx = CheckContext(
        base_sha=base, head_sha=head, changes=(), source=GitRepository(repo),
        settings=settings, model=ModelSpec(entrypoint="model.py:build"), python=sys.executable,
    )  # fmt: skip
    result = GradientCheck().run(ctx)
    caught = any("`blocks.11.down.*`" in f.message for f in result.findings)
    return {
        "outcome": str(result.outcome),
        "caught": caught,
        "summary": result.summary,
        "parameters": {
            "base": result.metrics.get("trainable_base"),
            "head": result.metrics.get("trainable_head"),
        },
    }


def _cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(*args: str) -> tuple[float, dict[str, Any]]:
    """Wall time of a fresh ``python -m bench.gradient ARGS``, and what it printed, plus the CPU
    time of it and everything it started (less sensitive to a busy machine) and the peak resident
    set of that whole process tree."""
    cpu = _cpu_s()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.gradient", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with PeakSampler(process.pid) as peak:
        stdout, stderr = process.communicate()
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"bench.gradient {args[0]} exited {process.returncode}:\n{stderr}")
    value = json.loads(stdout.strip().splitlines()[-1])
    return wall, {**value, "cpu_s": _cpu_s() - cpu, "peak_mb": peak.mb}


def figure(name: str, value: float, target: float) -> str:
    ok = value <= target
    return f"figure: {name} = {value:.2f} (target <= {target}) {'ok' if ok else 'MISSED'}"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--bare"]:
        print(json.dumps(bare_loop(Path(argv[1]))))
        return 0
    if argv[:1] == ["--check"]:
        print(json.dumps(the_check(Path(argv[1]), argv[2], argv[3])))
        return 0
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        folder = Path(tmp)
        base, head = build_repo(folder / "repo")
        (folder / "base.py").write_text(MODEL, encoding="utf-8")
        (folder / "head.py").write_text(HEAD, encoding="utf-8")
        bare: list[tuple[float, dict[str, Any]]] = []
        check: list[tuple[float, dict[str, Any]]] = []
        for _ in range(RUNS):  # interleaved, so a busy spell hits both
            bare.append(measure("--bare", str(folder)))
            check.append(measure("--check", str(folder / "repo"), base, head))
    bare_s, bare_mb = min(w for w, _ in bare), min(v["peak_mb"] for _, v in bare)
    check_s, check_mb = min(w for w, _ in check), min(v["peak_mb"] for _, v in check)
    result = check[-1][1]
    # The same work: the check trained the models the bare loop trained, revision by revision.
    assert result["parameters"] == bare[-1][1]["parameters"], (result, bare[-1][1])
    print(f"model: {bare[-1][1]['parameters']['head'] / 1e6:.1f}M parameters, {STEPS} steps per "
          "revision")  # fmt: skip
    bare_cpu, check_cpu = (min(v["cpu_s"] for _, v in runs) for runs in (bare, check))
    print(f"bare loop (one process, both revisions): {bare_s:.1f} s ({bare_cpu:.1f} s CPU), "
          f"peak {bare_mb:.0f} MB")  # fmt: skip
    print(f"gradient check ({result['outcome']}: {result['summary']}): {check_s:.1f} s "
          f"({check_cpu:.1f} s CPU), peak {check_mb:.0f} MB; best of {RUNS} each")  # fmt: skip
    if not result["caught"]:
        print("the check missed the planted .detach() in blocks.11", file=sys.stderr)
        return 1
    print(figure("gradient_time_vs_bare_loop", check_s / bare_s, TIME_TARGET))
    print(figure("gradient_memory_vs_bare_loop", check_mb / bare_mb, MEMORY_TARGET))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
