"""Benchmark: the `protected` check on a 1 MB Python file against `ast.parse` of its two sides.

Builds a git repository in a temp dir whose base holds one ~1 MB Python module with 1,000
protected statements (own-line markers on functions, trailing markers on assignments) and a PR
that edits 300 of them, plus unprotected lines around them. The figure is the check's wall time
(best of 3, in process, reading both sides from git included) over `ast.parse` of the base and
the head text (best of 3): the least any syntax-aware check must spend. It also asserts the
check reports exactly the 300 edits.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TARGET_RATIO = 5.0
RUNS = 3
PROTECTED, EDITED = 1_000, 300
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def function(n: int, *, protected: int, edited: bool) -> str:
    """One ~1 KB function with ``protected`` (0-2) units: its `def` (an own-line marker) or its
    `scale` line, then its `norm` line; ``edited`` changes the first."""
    scale = "0.25" if edited else "0.5"
    lines = [f"def layer_{n}(x, weight, bias=None, *, eps=1e-5, training=False):"]
    lines.append(f'    """Layer {n}: a normalised affine map with a residual."""')
    if protected and n % 2:
        lines.insert(0, "# NO_REFAC: checkpoints depend on this exact computation")
        lines.append(f"    scale = {scale}")
    else:
        marker = "  # NO_REFAC" if protected else ""
        lines.append(f"    scale = {scale}{marker}")
    lines += [
        "    mean = sum(x) / max(len(x), 1)",
        "    var = sum((v - mean) ** 2 for v in x) / max(len(x), 1)",
        "    normed = [(v - mean) / (var + eps) ** 0.5 for v in x]",
        "    out = [w * v for w, v in zip(weight, normed)]",
        "    if bias is not None:",
        "        out = [o + b for o, b in zip(out, bias)]",
        "    if training:",
        "        out = [o * (1.0 - scale) for o in out]",
        f"    # layer {n}: keep the residual in float32 when mixed precision is on",
        "    residual = [o + v * scale for o, v in zip(out, x)]",
        "    total = 0.0",
        "    for value in residual:",
        "        total += value * value",
        "    norm = total ** 0.5 if total > 0 else 1.0" + ("  # NO_REFAC" if protected > 1 else ""),
        "    result = {'out': residual, 'norm': norm, 'mean': mean, 'var': var}",
        f"    result['name'] = 'layer_{n}'",
        "    result['scale'] = scale",
        "    return result",
        "",
        "",
    ]
    return "\n".join(lines) + "\n"


def module(*, edited: bool) -> str:
    parts = ['"""A generated model module for the protected-lines benchmark."""\n\n']
    count = size = n = 0
    while size < 1_000_000:
        protected = min(2, PROTECTED - count)
        edit = edited and protected > 0 and n < EDITED
        count += protected
        parts.append(function(n, protected=protected, edited=edit))
        size += len(parts[-1])
        n += 1
    assert count == PROTECTED, count
    return "".join(parts)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def build(root: Path, base: str, head: str) -> tuple[str, str]:
    git(root, "init", "-q", "-b", "main")
    (root / "model.py").write_text(base, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base_sha = git(root, "rev-parse", "HEAD")
    (root / "model.py").write_text(head, encoding="utf-8")
    git(root, "commit", "-q", "-am", "head")
    return base_sha, git(root, "rev-parse", "HEAD")


def timed(step: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(RUNS):
        started = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - started)
    return best


def figure(name: str, value: str, target: str, ok: bool) -> str:
    return f"figure: {name} = {value} (target {target}) {'ok' if ok else 'MISSED'}"


def main() -> int:
    from gradgate.bot.git.repository import GitRepository
    from gradgate.checks.context import CheckContext
    from gradgate.checks.protected.check import ProtectedCheck
    from gradgate.checks.protected.settings import ProtectedSettings

    base, head = module(edited=False), module(edited=True)
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        root = Path(tmp)
        base_sha, head_sha = build(root, base, head)
        with GitRepository(root) as repo:
            ctx = CheckContext(
                base_sha=base_sha,
                head_sha=head_sha,
                changes=repo.changes(base_sha, head_sha),
                source=repo,
                settings=ProtectedSettings(),
            )
            result = ProtectedCheck().run(ctx)
            kinds = [f.kind for f in result.findings]
            assert kinds == ["protected-line-changed"] * EDITED, kinds[:5]
            check_s = timed(lambda: ProtectedCheck().run(ctx))
    parse_s = timed(lambda: (ast.parse(base), ast.parse(head)))
    print(
        f"{len(base) / 1e6:.2f} MB module, {base.count(chr(10)):,} lines, {PROTECTED:,} protected "
        f"statements, {EDITED} edited"
    )
    print(f"ast.parse of base and head: {parse_s:.3f} s (best of {RUNS})")
    print(f"protected check: {check_s:.3f} s (best of {RUNS}); {result.summary}")
    ratio = check_s / parse_s
    ok = ratio <= TARGET_RATIO
    print(figure("protected_vs_ast_parse", f"{ratio:.2f}", f"<= {TARGET_RATIO:.1f}", ok))
    return 0


if __name__ == "__main__":
    sys.exit(main())
