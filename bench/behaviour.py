"""Benchmark: the behaviour check as a user sees it, on semantic breakages and look-alike refactors.

Each change of the corpus (``bench/_behaviour_models.py``: the project's example model, a GPT in
the style of nanoGPT with a dropout variant, a conv net with BatchNorm) is committed on a PR
branch of a real git repo whose `.gradgate.yml` has one zone requiring the checks named with
``--checks`` (default: behaviour), and the whole gate runs on it (``run_request``, as
`gradgate check` runs it). Printed per kind of change: how many the gate caught (a breakage
blocked, an init change warned), how many got a finding of that weight at the line that
changed (from any check), and how many refactors were flagged (anything but a pass).
Figures: breakages caught, findings at the changed line (each over the breakages), refactors
flagged.

About 8 s per change on a quiet machine (two sandboxed children each import torch), three
minutes in all: run it by hand, `python -m bench.behaviour [--checks gradient,checkpoint,
behaviour] [name ...]`; `python -m bench` leaves it out (bench/__main__.py: ON_REQUEST).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml
from gradgate.bot.pipeline import Request, run_request
from gradgate.checks.base import CheckResult, Outcome, Severity

from bench._behaviour_models import CHANGES, MODELS, REFACTOR, WARNING, Change
from tests.gitrepo import GitRepo


def figure(name: str, value: str, target: str, ok: bool) -> str:
    """One figure line in DESIGN.md's fixed format."""
    return f"figure: {name} = {value} (target {target}) {'ok' if ok else 'MISSED'}"


def config(change: Change, checks: list[str]) -> str:
    model = MODELS[change.model]
    document = {
        "version": 1,
        "always": [],
        "zones": [{"name": "model", "paths": [model.path], "checks": checks}],
        "model": {"entrypoint": model.entrypoint},
        "checks": {check: {"timeout_s": 300} for check in checks},
    }
    return yaml.safe_dump(document, sort_keys=False)


def gate(folder: Path, change: Change, checks: list[str]) -> dict[str, CheckResult]:
    model = MODELS[change.model]
    repo = GitRepo(folder / change.name)
    repo.write(".gradgate.yml", config(change, checks))
    repo.write(model.path, model.source)
    if "/" in model.path:
        repo.write(str(Path(model.path).parent / "__init__.py"), "")
    repo.commit("base")
    repo.branch("pr")
    repo.write(model.path, change.head())
    repo.commit(change.name)
    report = run_request(
        Request(repo_path=repo.root, base="main", head="pr", only=tuple(checks),
                python=sys.executable)
    )  # fmt: skip
    return {check: result for check in checks if (result := report.result_for(check))}


def judged(change: Change, results: dict[str, CheckResult]) -> tuple[bool, bool]:
    """(caught, at the line): a breakage blocked (an init change: warned) by the gate, and a
    finding of that weight, from any check, at the changed line; a refactor: flagged, False."""
    outcomes = {r.outcome for r in results.values()}
    if change.kind == REFACTOR:
        return outcomes != {Outcome.PASS}, False
    wanted = Severity.WARNING if change.expect == WARNING else Severity.BLOCKING
    caught = Outcome.FAIL in outcomes or (wanted is Severity.WARNING and Outcome.WARN in outcomes)
    path = MODELS[change.model].path
    at_line = any(
        f.severity is wanted and (f.file, f.line) == (path, change.line())
        for result in results.values()
        for f in result.findings
    )
    return caught, at_line


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", default="behaviour")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    checks = args.checks.split(",")
    chosen = [c for c in CHANGES if not args.names or c.name in args.names]
    rows: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-behaviour-") as folder:
        for change in chosen:
            started = time.perf_counter()
            results = gate(Path(folder), change, checks)
            rows[change.kind].append(judged(change, results))
            said = ", ".join(f"{name}: {r.outcome.value}" for name, r in results.items())
            print(f"{change.name:28} {said:40} {time.perf_counter() - started:5.1f} s")
    print(f"\n{'kind':40} {'caught':>8} {'at line':>8}")
    broken = [row for kind, found in rows.items() if kind != REFACTOR for row in found]
    for kind, found in rows.items():
        if kind == REFACTOR:
            continue
        got = sum(c for c, _ in found)
        placed = sum(a for _, a in found)
        print(f"{kind:40} {got:>4}/{len(found):<3} {placed:>4}/{len(found):<3}")
    refactors = rows.get(REFACTOR, [])
    flagged = sum(c for c, _ in refactors)
    print(f"{'refactors flagged':40} {flagged:>4}/{len(refactors):<3}")
    caught = sum(c for c, _ in broken)
    at_line = sum(a for _, a in broken)
    total = max(len(broken), 1)
    print(figure("behaviour_breakages_caught", f"{caught / total:.2f}", ">= 1.0",
                 caught == len(broken)))  # fmt: skip
    print(figure("behaviour_findings_at_changed_line", f"{at_line / total:.2f}", ">= 1.0",
                 at_line == len(broken)))  # fmt: skip
    print(figure("behaviour_refactors_flagged", f"{flagged}/{len(refactors)}", "<= 0",
                 flagged == 0))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
