"""Benchmark: the api-contract check and the gradient-sensitive scan on 1,000 changed files.

Builds a synthetic repository in a temp dir (one `git fast-import` stream): 1,000 real-sized
Python modules (~300 lines: losses, a module class, training steps calling the losses of other
modules positionally and by keyword, `F.cross_entropy` calls, `no_grad` blocks), all of them
edited by the head commit; in some the head reorders a loss's parameters, renames a keyword,
changes a default, swaps a cross-entropy's arguments or adds a `.detach()`.

The baseline is `ast.parse` of the same base and head files, in memory: the least any static
reading of them costs. The figure is the check's `run` (reads through git, signatures, the
one-pass call-site search over the tree, the loss scan) plus the gradient-sensitive scan of the
same files (the planner's, run on every file instead of stopping at its 200-file cap), as a
ratio to that baseline. Also checks that the findings are the planted ones.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

FILES = 1_000
TARGET_RATIO = 2.0
RUNS = 3
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}

HEADER = '''\
"""Module {i}: a loss, a block and the training steps that use them (generated)."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from pkg import m{c:04d}
from pkg.m{a:04d} import blend_{a}, score_{a}
from pkg.m{b:04d} import score_{b}


def score_{i}(targets, preds, weight=1.0, eps=1e-6):
    """Weighted cross entropy with a floor."""
    loss = F.cross_entropy(preds, targets, reduction="none")
    loss = loss.clamp_min(eps)
    return weight * loss.mean()


def blend_{i}(x, y, *, alpha=0.5, mode="linear"):
    """Mix two tensors."""
    if mode == "linear":
        return alpha * x + (1 - alpha) * y
    return torch.maximum(x, y)


class Block{i}(nn.Module):
    def __init__(self, dim, hidden=128, dropout=0.1):
        super().__init__()
        self.proj = nn.Linear(dim, hidden)
        self.out = nn.Linear(hidden, dim)
        self.drop = nn.Dropout(dropout)
        self.crit = nn.CrossEntropyLoss()

    def forward(self, x, mask=None):
        h = F.gelu(self.proj(x))
        if mask is not None:
            h = h.masked_fill(mask, 0.0)
        return x + self.drop(self.out(h))

    def loss(self, x, labels):
        logits = self(x)
        return self.crit(logits, labels)


def train_step_{i}(model, batch, opt):
    x, y = batch
    out = model(x)
    main = score_{a}(y, out)
    aux = score_{b}(y, out, weight=0.1)
    mixed = blend_{a}(x, out, alpha=0.3)
    extra = m{c:04d}.score_{c}(y, out)
    loss = main + aux + extra + mixed.mean() * 0.0
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


@torch.no_grad()
def evaluate_{i}(model, loader):
    total, hits = 0, 0
    for x, y in loader:
        logits = model(x)
        hits += (logits.argmax(-1) == y).sum().item()
        total += y.numel()
    return hits / max(total, 1)
'''

FILLER = '''

def helper_{i}_{k}(values, scale={k}.5, steps=8, momentum=0.9):
    """A numeric helper, the kind every training repository has a dozen of."""
    out = []
    running = 0.0
    for step in range(steps):
        for value in values:
            running = momentum * running + (1 - momentum) * value * scale
            if math.isfinite(running) and running > {k}:
                out.append(math.sqrt(abs(running)) / (step + 1))
            elif running < -{k}:
                out.append(-math.log1p(abs(running)))
            else:
                out.append(running)
    with torch.no_grad():
        summary = torch.tensor(out or [0.0]).mean()
    return summary.item() if out else 0.0
'''


def module_text(i: int, *, head: bool) -> str:
    a, b, c = (i * 7 + 1) % FILES, (i * 13 + 5) % FILES, (i * 31 + 11) % FILES
    text = HEADER.format(i=i, a=a, b=b, c=c) + "".join(FILLER.format(i=i, k=k) for k in range(12))
    if not head:
        return text
    text = text.replace("/ (step + 1)", "/ (step + 2)", 1)  # every file changes
    if i % 10 == 0:  # a reorder: the callers in other modules are unchanged
        text = text.replace(f"score_{i}(targets, preds,", f"score_{i}(preds, targets,")
    if i % 20 == 3:  # a keyword renamed: `alpha=` callers fail
        text = text.replace("*, alpha=0.5,", "*, mix=0.5,").replace(
            "return alpha *", "return mix *"
        )
        text = text.replace("(1 - alpha)", "(1 - mix)")
    if i % 20 == 7:  # a default changed
        text = text.replace("eps=1e-6", "eps=1e-8")
    if i % 50 == 9:  # a swapped loss call
        text = text.replace("self.crit(logits, labels)", "self.crit(labels, logits)")
    if i % 33 == 4:  # a gradient-sensitive edit
        text = text.replace("h = F.gelu(self.proj(x))", "h = F.gelu(self.proj(x)).detach()")
    return text


def build_repo(
    root: Path, text: Callable[..., str] = module_text
) -> dict[str, tuple[bytes, bytes]]:
    """The repository of FILES modules, ``text(i, head=...)`` each, committed as base and head."""
    files = {
        f"pkg/m{i:04d}.py": (text(i, head=False).encode(), text(i, head=True).encode())
        for i in range(FILES)
    }
    stream: list[bytes] = []
    mark = 0
    marks: dict[tuple[str, int], int] = {}
    for path, sides in files.items():
        for side, data in enumerate(sides):
            mark += 1
            marks[path, side] = mark
            stream.append(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
    stream.append(b"blob\nmark :%d\ndata 0\n\n" % (mark + 1))
    commits = mark + 2
    for side, ref in enumerate(("base", "head")):
        stream.append(b"commit refs/heads/%s\nmark :%d\n" % (ref.encode(), commits + side))
        stream.append(b"committer Bench <bench@example.com> 0 +0000\ndata 4\n%s\n" % ref.encode())
        if side:
            stream.append(b"from :%d\n" % commits)
        stream.append(b"M 100644 :%d pkg/__init__.py\n" % (mark + 1))
        stream += [b"M 100644 :%d %s\n" % (marks[p, side], p.encode()) for p in files]
        stream.append(b"\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, env=GIT_ENV, check=True)
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=root, env=GIT_ENV, input=b"".join(stream), check=True
    )
    return files


def figure(name: str, value: str, target: str, ok: bool) -> str:
    """One figure line in DESIGN.md's fixed format."""
    return f"figure: {name} = {value} (target {target}) {'ok' if ok else 'MISSED'}"


def main() -> int:
    from gradgate.bot.git.repository import GitRepository
    from gradgate.checks.api_contract.check import ApiContractCheck
    from gradgate.checks.api_contract.settings import ApiContractSettings
    from gradgate.checks.base import CheckResult
    from gradgate.checks.context import CheckContext
    from gradgate.checks.gradient.edits import gradient_edits, needs_parse

    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        files = build_repo(root)
        lines = sum(head.count(b"\n") for _, head in files.values()) // FILES
        took = time.perf_counter() - started
        print(f"built {FILES:,} changed modules (~{lines} lines each) in {took:.1f} s")

        def parse_all() -> None:
            for base, head in files.values():
                ast.parse(base)
                ast.parse(head)

        with GitRepository(root) as git:
            base_sha, head_sha = git.resolve("base"), git.resolve("head")
            changes = git.changes(base_sha, head_sha)
            assert len(changes) == FILES, len(changes)

            def check() -> CheckResult:
                ctx = CheckContext(
                    base_sha=base_sha,
                    head_sha=head_sha,
                    changes=changes,
                    source=git,  # each run reads through git again: nothing is cached between runs
                    settings=ApiContractSettings(),
                    zones={"core": tuple(c.path for c in changes)},
                )
                return ApiContractCheck().run(ctx)

            def scan() -> int:
                needing = [(p, b, h) for p, (b, h) in files.items() if needs_parse(b, h)]
                return len(gradient_edits(needing))

            # Interleaved, best of RUNS each: a machine busy with something else slows all three.
            best: dict[str, tuple[float, float]] = {}
            results: dict[str, object] = {}
            for _ in range(RUNS):
                for name, step in (("parse", parse_all), ("check", check), ("scan", scan)):
                    wall, cpu = time.perf_counter(), time.process_time()
                    results[name] = step()
                    spent = (time.perf_counter() - wall, time.process_time() - cpu)
                    best[name] = min(best.get(name, spent), spent)
        result, edits = results["check"], results["scan"]
        parse_s, check_s, scan_s = (best[n][0] for n in ("parse", "check", "scan"))
        cpu_ratio = (best["check"][1] + best["scan"][1]) / best["parse"][1]

    assert isinstance(result, CheckResult)
    counts = Counter(f.kind for f in result.findings)
    expected = {
        "signature-reordered": FILES // 10,
        "parameter-renamed": FILES // 20,
        "default-changed": FILES // 20,
        "loss-arguments-swapped": FILES // 50,
    }
    assert dict(counts) == expected, counts
    assert edits == len(range(4, FILES, 33)), edits
    ratio = (check_s + scan_s) / parse_s
    print(f"ast.parse of base and head, in memory: {parse_s:.3f} s (best of {RUNS})")
    print(f"api-contract check: {check_s:.3f} s; {sum(counts.values())} findings: {dict(counts)}")
    print(f"gradient-sensitive scan: {scan_s:.3f} s; {edits} edits")
    print(f"the ratio in CPU time of this process (git's own excluded): {cpu_ratio:.2f}")
    print(
        figure(
            "api_contract_vs_parse", f"{ratio:.2f}", f"<= {TARGET_RATIO:.1f}", ratio <= TARGET_RATIO
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
