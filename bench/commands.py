"""Benchmark: the `commands` check on small training repositories, verdicts and time.

Verdicts: each ``Plant`` of ``bench._command_repos`` (a configurator script, argparse, Hydra-style
overrides, a torchrun DDP launch) is a pull request on its style's repository, judged by
`CommandsCheck().run` with the style's overrides: every planted regression must block at its
line (the last frame inside the repository, on the line the PR changed), every harmless edit
must pass. The regressions: a dtype chosen at import time from a CUDA query, `pin_memory()`
called on every batch, a method called on the DDP wrapper instead of the model (with two
gloo processes), and two of our own: a tensor moved to CUDA by hand, and a config key renamed
in the code but not in the config.

Time: a repository whose README documents three commands (configurator, argparse, Hydra
styles), and a pull request that changes all three scripts harmlessly. The baseline runs the
three commands themselves, with the same overrides, one after the other, each a fresh
unsandboxed Python process at head (what a reader would run); the figure is the check's wall
time (reading the docs, a checkout, a sandboxed run per command) as a ratio to it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradgate.checks.base import CheckResult, Outcome
from gradgate.checks.commands.launch import QUIET
from gradgate.checks.commands.settings import CommandsSettings, Shrink

from bench._command_repos import PLANTS, STYLES, Plant, style_files
from tests.checks.commands.pr import pull_request
from tests.gitrepo import GitRepo

RUNS = 2  # best of: the machine may be shared
TIME_TARGET = 2.0
TIMED_STYLES = ("configurator", "argparse", "hydra")


def settings_for(*styles: str) -> CommandsSettings:
    overrides = {STYLES[s].script: Shrink(args=STYLES[s].args) for s in styles}
    return CommandsSettings(overrides=overrides, timeout_s=600.0)


def judged(plant: Plant, root: Path) -> tuple[bool, str]:
    result = pull_request(GitRepo(root), style_files(plant.style), plant.head(),
                          settings_for(plant.style))  # fmt: skip
    if not plant.regression:
        return result.outcome is Outcome.PASS and not result.findings, _said(result)
    at = [(f.kind, f.file, f.line) for f in result.findings]
    return at == [("commands-broke", plant.path, plant.line())], _said(result)


def _said(result: CheckResult) -> str:
    if not result.findings:
        return f"{result.outcome}: {result.summary}"
    first = result.findings[0]
    return f"{result.outcome}: {first.kind} at {first.file}:{first.line}"


def verdicts(tmp: Path) -> tuple[int, int, int, int]:
    blocked = regressions = passed = harmless = 0
    for index, plant in enumerate(PLANTS):
        ok, said = judged(plant, tmp / f"plant{index}")
        if plant.regression:
            regressions += 1
            blocked += ok
        else:
            harmless += 1
            passed += ok
        kind = "regression" if plant.regression else "harmless  "
        print(f"{kind} {plant.style:12} {plant.name:28} {'ok    ' if ok else 'MISSED'} {said}")
    return blocked, regressions, passed, harmless


def three_commands(root: Path) -> tuple[GitRepo, dict[str, str], dict[str, str]]:
    files: dict[str, str] = {}
    for style in TIMED_STYLES:
        files.update(STYLES[style].files)
    blocks = "\n".join(f"```bash\n{STYLES[s].command}\n```\n" for s in TIMED_STYLES)
    files["README.md"] = f"# Tiny\n\n{blocks}"
    head = {STYLES[s].script: STYLES[s].files[STYLES[s].script] + "# tidied\n"
            for s in TIMED_STYLES}  # fmt: skip
    return GitRepo(root), files, head


def bare(root: Path) -> float:
    """The three commands, as a reader runs them with the same overrides, one after another."""
    env = {**os.environ, **QUIET, "CUDA_VISIBLE_DEVICES": ""}
    started = time.perf_counter()
    for style in TIMED_STYLES:
        words = STYLES[style].command.split()[1:]  # `python` -> this interpreter
        subprocess.run([sys.executable, *words, *STYLES[style].args], cwd=root, env=env,
                       check=True, capture_output=True)  # fmt: skip
    return time.perf_counter() - started


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-commands-") as folder:
        tmp = Path(folder)
        blocked, regressions, passed, harmless = verdicts(tmp)
        gate_times, bare_times = [], []
        for run in range(RUNS):
            repo, base, head = three_commands(tmp / f"timed{run}")
            result = pull_request(repo, base, head, settings_for(*TIMED_STYLES))
            gate_times.append(result.duration_s)  # the check's run: docs, checkout, sandbox
            # The same work: the check ran the commands the baseline runs.
            assert result.outcome is Outcome.PASS, result
            assert result.metrics["commands"] == len(TIMED_STYLES), result
            bare_times.append(bare(repo.root))
    gate, alone = min(gate_times), min(bare_times)
    ratio = gate / alone
    print(f"three documented commands: the check {gate:.1f} s, the commands alone {alone:.1f} s")
    print(
        f"figure: commands_regressions_blocked_at_line = {blocked}/{regressions} "
        f"(target == {regressions}/{regressions}) {'ok' if blocked == regressions else 'MISSED'}"
    )
    print(
        f"figure: commands_harmless_edits_passed = {passed}/{harmless} "
        f"(target == {harmless}/{harmless}) {'ok' if passed == harmless else 'MISSED'}"
    )
    print(
        f"figure: commands_vs_bare = {ratio:.2f} (target < {TIME_TARGET}) "
        f"{'ok' if ratio < TIME_TARGET else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
