"""Benchmark: `gradgate plan` on a 100,000-path diff against `git diff --name-only` on it.

Builds a synthetic repository in a temp dir (bench/_plan_repo.py): a base with 80,000 files and
a `.gradgate.yml` of 50 zones / 500 patterns, and a head that edits all of them and adds 20,000
more. Two figures, each the median of paired rounds (one run of each side per round: on a
shared machine the load of the moment weighs on both sides of a round alike):

- plan_vs_git_diff: the plan's steps 1-4 (read the config at base, read the diff from git, the
  files at head for the zone gaps, match zones, plan) in this process, git included, against
  `git diff --name-only` as a subprocess: what the planner adds to git's own work.
- plan_command_vs_floor: what the user waits for, `gradgate plan --format json` as a command
  from start to exit, against the least any such command can take: a bare interpreter start
  (`python -c pass`) plus `git diff --name-only`. The gap is imports, the plan and rendering
  (issue 38).

Also checks that planning never imports torch (DESIGN: `gradgate plan` must not), and that the
command's JSON is the plan this repo must give.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench._plan_repo import ADDED, CHECKS, EDITED, GIT_ENV, PATTERNS_PER_ZONE, ZONES, build_repo

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 2.0
TARGET_COMMAND = 3.0  # the whole command over the floor
RUNS = 3
ROUNDS = 7  # git, then the plan, in each; the figure is the median ratio
GIT_DIFF = ("git", "diff", "--name-only", "base", "head")
BARE = (sys.executable, "-c", "pass")


def best_of(runs: int, command: Sequence[str], cwd: Path) -> tuple[float, str]:
    """The fastest wall time of ``runs`` runs, and the output of the last one."""
    best, out = float("inf"), ""
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, env=bench_env(), capture_output=True, text=True)
        best = min(best, time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
        out = done.stdout
    return best, out


def bench_env() -> dict[str, str]:
    return {**GIT_ENV, "PYTHONPATH": str(ROOT)}


def plan_command(repo: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gradgate.bot",
        "plan",
        "--repo",
        str(repo),
        "--base",
        "base",
        "--head",
        "head",
        "--format",
        "json",
    ]


def check_plan_json(text: str) -> int:
    """Assert the plan is the one this repository must give; the number of zones it touched."""
    plan = json.loads(text)
    assert plan["changed_files"] == EDITED + ADDED, plan["changed_files"]
    assert plan["config_origin"] == "base", plan["config_origin"]
    assert isinstance(plan["zones"], dict) and len(plan["zones"]) == ZONES, len(plan["zones"])
    # Every check the zones name; the checks that plan themselves for any Python change (dl-lint,
    # data, metrics, perf) come on top.
    assert set(CHECKS) <= {c["name"] for c in plan["checks"]}, plan["checks"]
    return len(plan["zones"])


# Runs `gradgate plan` in a fresh interpreter and reports whether torch got imported.
_TORCH_PROBE = """
import contextlib, io, json, sys
from gradgate.bot.doors.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"exit": code, "torch": "torch" in sys.modules}))
"""


def imports_torch(repo: Path) -> bool:
    argv = plan_command(repo)[3:]
    done = subprocess.run(
        [sys.executable, "-c", _TORCH_PROBE, *argv],
        cwd=ROOT,
        env=bench_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    assert probe["exit"] == 0, done.stderr
    return bool(probe["torch"])


def paired(git: Sequence[str], repo: Path, plan: Callable[[], object]) -> list[float]:
    """Per round: the plan's wall time over git's, measured one right after the other."""
    ratios = []
    for _ in range(ROUNDS):
        git_s, _ = best_of(1, git, repo)
        started = time.perf_counter()
        plan()
        ratios.append((time.perf_counter() - started) / git_s)
    return ratios


def command_vs_floor(repo: Path) -> tuple[list[float], float]:
    """Per round: the whole `gradgate plan` command's wall time over a bare interpreter start
    plus `git diff --name-only`, one right after the other; and the best floor seen."""
    ratios, floors = [], []
    for _ in range(ROUNDS):
        floor = best_of(1, BARE, ROOT)[0] + best_of(1, GIT_DIFF, repo)[0]
        command_s, _ = best_of(1, plan_command(repo), ROOT)
        ratios.append(command_s / floor)
        floors.append(floor)
    return ratios, min(floors)


def timed(step: Callable[[], object]) -> float:
    """The fastest wall time of RUNS calls of ``step`` in this process."""
    best = float("inf")
    for _ in range(RUNS):
        started = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - started)
    return best


def in_process(repo: Path) -> tuple[float, list[float], list[tuple[str, float]]]:
    """Steps 1-4 (config, diff, zones, plan) as `gradgate plan` runs them, and where time goes."""
    from gradgate.bot.config.patterns import gitignore_regex
    from gradgate.bot.git.repository import GitRepository
    from gradgate.bot.pipeline import Request, plan_request, read_policy, zone_gaps
    from gradgate.bot.plan.plan import make_plan
    from gradgate.bot.plan.zones import ZoneMatcher
    from gradgate.bot.plan.zones.index import parse_regex
    from gradgate.bot.report.render import render_plan

    request = Request(repo_path=repo, base="base", head="head")

    def fresh_plan() -> object:
        # As in a fresh `gradgate plan`: each run reads every pattern anew.
        gitignore_regex.cache_clear()
        parse_regex.cache_clear()
        return plan_request(request, for_checks=False)

    plan_s = timed(fresh_plan)
    ratios = paired(GIT_DIFF, repo, fresh_plan)
    source = GitRepository(repo)
    head = source.resolve("head")
    base = source.merge_base(source.resolve("base"), head)
    policy = read_policy(source, request, base, head)

    def read_paths() -> tuple[list[str], int]:
        return source.changed_paths(base, head)

    paths, files = read_paths()
    plan = make_plan(policy.config, paths, changed_files=files, config_origin=policy.origin)
    bare, _ = best_of(RUNS, BARE, ROOT)
    startup, _ = best_of(
        RUNS,
        [
            sys.executable,
            "-c",
            "import gradgate.bot.doors.cli, gradgate.bot.pipeline, gradgate.bot.report.render",
        ],
        ROOT,
    )
    return (
        plan_s,
        ratios,
        [
            ("diff read (paths)", timed(read_paths)),
            ("zone gaps (files at head)", timed(lambda: zone_gaps(policy.config, source, head))),
            (
                "zone matching (compile too)",
                timed(lambda: ZoneMatcher.compile(policy.config.zones).match(paths)),
            ),
            (
                "plan (zones included)",
                timed(
                    lambda: make_plan(
                        policy.config, paths, changed_files=files, config_origin=policy.origin
                    )
                ),
            ),
            ("render JSON", timed(lambda: render_plan(plan, "json"))),
            ("interpreter start, bare", bare),
            ("interpreter start + imports", startup),
        ],
    )


def figure(name: str, value: str, target: str, ok: bool) -> str:
    """One figure line in DESIGN.md's fixed format."""
    return f"figure: {name} = {value} (target {target}) {'ok' if ok else 'MISSED'}"


def main() -> int:
    # As installed: an install compiles the package's bytecode, where a checkout run with
    # PYTHONDONTWRITEBYTECODE would compile every module of the command on every run.
    compiled = [sys.executable, "-m", "compileall", "-q", "bot", "checks"]
    subprocess.run(compiled, cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        started = time.perf_counter()
        build_repo(repo)
        print(
            f"built {EDITED + ADDED:,} changed paths, {ZONES} zones / {ZONES * PATTERNS_PER_ZONE} "
            f"patterns in {time.perf_counter() - started:.1f} s"
        )

        git_s, names = best_of(RUNS, GIT_DIFF, repo)
        assert len(names.splitlines()) == EDITED + ADDED, len(names.splitlines())
        cli_s, out = best_of(RUNS, plan_command(repo), ROOT)
        touched = check_plan_json(out)
        torch = imports_torch(repo)
        plan_s, ratios, steps = in_process(repo)
        whole, floor_s = command_vs_floor(repo)

    print(f"git diff --name-only: {git_s:.3f} s (subprocess, best of {RUNS})")
    print(f"plan, steps 1-4 in process: {plan_s:.3f} s (best of {RUNS}); {touched} zones touched")
    for step, seconds in steps:
        print(f"  {step:<30} {seconds:.3f} s")
    print(f"`gradgate plan --format json` as a command, start to exit: {cli_s:.3f} s")
    print(f"floor, a bare interpreter start + git diff --name-only: {floor_s:.3f} s (best)")
    print("plan / git diff, round by round: " + ", ".join(f"{r:.2f}" for r in ratios))
    print("command / floor, round by round: " + ", ".join(f"{r:.2f}" for r in whole))
    ratio, command = statistics.median(ratios), statistics.median(whole)
    print(
        figure("plan_vs_git_diff", f"{ratio:.2f}", f"<= {TARGET_RATIO:.1f}", ratio <= TARGET_RATIO)
    )
    print(
        figure(
            "plan_command_vs_floor",
            f"{command:.2f}",
            f"<= {TARGET_COMMAND:.1f}",
            command <= TARGET_COMMAND,
        )
    )
    print(figure("plan_imports_torch", str(int(torch)), "== 0", not torch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
