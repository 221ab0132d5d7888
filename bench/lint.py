"""Benchmark: the dl-lint check on 1,000 changed files.

The repository is bench/api_contract.py's (1,000 real-sized training modules, every one edited by
the head commit), with folklore mistakes added at head in some: a hook registered inside
`forward`, a whole module saved with `torch.save`, a `torch.load` of a path from outside, a
NumPy seed without torch's. The baseline is `ast.parse` of the same base and head files, in
memory: the least a static reading of them costs. The figure is the check's `run` (reads
through git, parses both sides, scans, keeps what the PR added) as a ratio to it, best of RUNS,
interleaved. Also checks that the findings are the planted ones, and nothing else.
"""

from __future__ import annotations

import ast
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.api_contract import FILES, build_repo, figure, module_text

TARGET_RATIO = 2.0
RUNS = 3


def lint_text(i: int, *, head: bool) -> str:
    text = module_text(i, head=head)
    if not head:
        return text
    if i % 25 == 1:  # a hook that piles up every step
        text = text.replace(
            "        h = F.gelu(self.proj(x))",
            "        self.proj.register_forward_hook(lambda m, a, o: None)\n"
            "        h = F.gelu(self.proj(x))",
        )
    if i % 40 == 2:  # a whole module pickled
        text += f"\n\ndef save_{i}(model, path):\n    torch.save(model, path)\n"
    if i % 50 == 3:  # a checkpoint from anywhere, unpickled
        text += f"\n\ndef restore_{i}(path):\n    return torch.load(path)\n"
    return text


def main() -> int:
    from gradgate.bot.git.repository import GitRepository
    from gradgate.checks.base import CheckResult
    from gradgate.checks.context import CheckContext
    from gradgate.checks.dl_lint.check import DlLintCheck
    from gradgate.checks.dl_lint.settings import DlLintSettings

    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        root = Path(tmp)
        files = build_repo(root, lint_text)

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
                    source=git,
                    settings=DlLintSettings(),
                    zones={"core": tuple(c.path for c in changes)},
                )
                return DlLintCheck().run(ctx)

            best: dict[str, float] = {}
            result: CheckResult | None = None
            for _ in range(RUNS):
                for name in ("parse", "check"):
                    started = time.perf_counter()
                    if name == "parse":
                        parse_all()
                    else:
                        result = check()
                    spent = time.perf_counter() - started
                    best[name] = min(best.get(name, spent), spent)

    assert result is not None
    counts = Counter(f.kind for f in result.findings)
    expected = {
        "lint-hook-in-forward": len(range(1, FILES, 25)),
        "lint-save-pickled-objects": len(range(2, FILES, 40)),
        "lint-load-unsafe": len(range(3, FILES, 50)),
    }
    assert dict(counts) == expected, counts
    ratio = best["check"] / best["parse"]
    print(f"ast.parse of base and head, in memory: {best['parse']:.3f} s (best of {RUNS})")
    print(f"dl-lint check: {best['check']:.3f} s; findings: {dict(counts)}")
    print(figure("lint_vs_parse", f"{ratio:.2f}", f"<= {TARGET_RATIO:.1f}", ratio <= TARGET_RATIO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
