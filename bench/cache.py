"""Benchmark: the result cache (issue 37) on a linear history of a model repository.

The repository (``bench._cache_repo``) is a small GPT-style transformer with opt-in flags,
built up over 25 commits; its config runs the gradient check on every change. Each commit is
gated against its parent, twice: cold (no cache) and with a cache that starts empty and fills
as the history goes. Figures:

- ``cache_replay_vs_cold``: the replay's total time with the cache over without it
  (target <= 0.6);
- ``cache_recheck_vs_first``: an unchanged PR's second run (a /recheck, a Re-run button) over
  its first, from an empty cache (target <= 0.1).

Every commit's verdict, findings and model plan must be the same with and without the cache:
the bench fails otherwise. It also prints, per commit, which sides the cache answered.
"""

from __future__ import annotations

import itertools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gradgate.bot.pipeline import Request, run_request
from gradgate.bot.report.render import render
from gradgate.checks.cache.store import FolderStore

from bench._cache_repo import history, steps

REPLAY_TARGET, RECHECK_TARGET = 0.6, 0.1


def gate(
    repo: Path, base: str, head: str, store: FolderStore | None
) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    report = run_request(Request(repo_path=repo, base=base, head=head, cache=store))
    elapsed = time.perf_counter() - started
    return json.loads(render(report, "json")), elapsed


def decided(data: dict[str, Any]) -> Any:
    """What must not depend on the cache: the verdict, each check's outcome, summary and
    findings, and the model plan."""
    checks = [{k: c[k] for k in ("name", "outcome", "summary", "findings")} for c in data["checks"]]
    return data["verdict"], checks, data["model_plan"]


def sides(data: dict[str, Any]) -> str:
    found = {c["revision"] for check in data["checks"] for c in check["cached"]}
    return "+".join(r for r in ("base", "head") if r in found) or "-"


def replay(
    repo: Path, shas: list[str], store: FolderStore | None
) -> list[tuple[dict[str, Any], float]]:
    return [gate(repo, base, head, store) for base, head in itertools.pairwise(shas)]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-cache-") as folder:
        root = Path(folder)
        repo, shas = history(root / "repo")
        print(f"history: {len(shas)} commits, {len(shas) - 1} gates (gradient on every one)")
        cold = replay(repo.root, shas, None)
        warm = replay(repo.root, shas, FolderStore(root / "cache"))
        same = True
        messages = [m for m, _ in steps()][1:]
        for number, ((c, c_s), (w, w_s)) in enumerate(zip(cold, warm, strict=True), start=1):
            agree = decided(c) == decided(w)
            same = same and agree
            print(
                f"  {number:2d} {messages[number - 1][:44]:44s} {c['verdict']:8s} "
                f"cold {c_s:5.1f} s  cached {w_s:5.1f} s  from cache: {sides(w):9s}"
                f"{'' if agree else '  DIFFERENT'}"
            )
        cold_s, warm_s = sum(s for _, s in cold), sum(s for _, s in warm)
        ratio = warm_s / cold_s
        print(f"replay: cold {cold_s:.1f} s, with the cache {warm_s:.1f} s")
        ok = "ok" if ratio <= REPLAY_TARGET else "MISSED"
        print(f"figure: cache_replay_vs_cold = {ratio:.2f} (target <= {REPLAY_TARGET}) {ok}")

        store = FolderStore(root / "recheck-cache")
        first, first_s = gate(repo.root, shas[-3], shas[-2], store)
        again, again_s = gate(repo.root, shas[-3], shas[-2], store)
        same = same and decided(first) == decided(again)
        ratio = again_s / first_s
        print(f"recheck: first run {first_s:.2f} s, unchanged recheck {again_s:.2f} s "
              f"(from cache: {sides(again)})")  # fmt: skip
        ok = "ok" if ratio <= RECHECK_TARGET else "MISSED"
        print(f"figure: cache_recheck_vs_first = {ratio:.3f} (target <= {RECHECK_TARGET}) {ok}")
        print(f"verdicts and findings identical with and without the cache: {same}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
