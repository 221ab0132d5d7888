"""`gradgate demo`: build the bundled example repo with a PR of quiet breakages, gate it, print it.

After the report it says, breakage by breakage, which check caught it and which did not (a
check that is not available here, or that could not run, is named as such: the demo must not
oversell). Exits 0 when the tour worked (the report fails the PR and every planted breakage was
caught) and 2 when gradgate itself broke, a planted breakage went uncaught, or the interpreter
that runs the example's model has no torch (then it says what to install). That interpreter is
gradgate's own, or GRADGATE_PYTHON.
"""

from __future__ import annotations

import importlib.resources
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gradgate.bot.doors.cli.parser import interpreter
from gradgate.bot.report.render import Format, Report, render
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates import render_template
from gradgate.checks.base import Finding, Outcome
from gradgate.checks.errors import GradgateError


def _example_root() -> Path:
    """examples/, installed as the package `gradgate.examples` (a plain folder in a wheel)."""
    return Path(str(importlib.resources.files("gradgate.examples")))


EXAMPLE = _example_root() / "tiny-classifier"
PR_BRANCH = "pr/tidy-up"

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "gradgate demo",
    "GIT_AUTHOR_EMAIL": "demo@gradgate.invalid",
    "GIT_COMMITTER_NAME": "gradgate demo",
    "GIT_COMMITTER_EMAIL": "demo@gradgate.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=root, env={**os.environ, **_GIT_ENV}, check=True, capture_output=True
    )


def build_example(root: Path, example: Path = EXAMPLE) -> None:
    """A git repo at ``root``: `main` holds example/base, PR_BRANCH overlays example/pr on it."""
    if not (example / "base").is_dir():
        raise GradgateError(
            f"the bundled example is missing ({example}); install gradgate from a source checkout"
        )
    # shutil.copy, not copy2: a copied file that kept its old mtime and size would look
    # unchanged to git's stat cache, and the PR commit would silently miss it.
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")  # an install compiles the example
    shutil.copytree(
        example / "base", root, dirs_exist_ok=True, copy_function=shutil.copy, ignore=skip
    )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "tiny-classifier: baseline")
    _git(root, "checkout", "-q", "-b", PR_BRANCH)
    shutil.copytree(
        example / "pr", root, dirs_exist_ok=True, copy_function=shutil.copy, ignore=skip
    )
    message = (example / "PR.md").read_text(encoding="utf-8").splitlines()[0]
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)


@dataclass(frozen=True, slots=True)
class Planted:
    """One quiet breakage the example's PR plants, the check meant to catch it, and the finding
    that says it did."""

    what: str
    check: str
    caught_by: Callable[[Finding], bool]


PLANTED = (
    Planted(
        "the edited `# NO_REFAC` line in train.py",
        "protected",
        lambda f: f.kind == "protected-line-changed" and f.file == "train.py",
    ),
    Planted(
        "the stray `.detach()` that stops `proj` from learning",
        "gradient",
        lambda f: f.kind == "gradient-lost-gradient" and f.message.startswith("`proj.*`"),
    ),
    Planted(
        "the renamed layer (`fc` -> `classifier`) that old checkpoints no longer load into",
        "checkpoint",
        lambda f: f.kind == "checkpoint-renamed",
    ),
    Planted(
        "the dropped BGR→RGB conversion in the evaluation preprocessing",
        "data",
        lambda f: f.kind == "data-changed" and "BGR ↔ RGB" in f.message,
    ),
    Planted(
        "the README's `batch_size 32` against the config's 64",
        "config-docs",
        lambda f: f.kind == "doc-value-mismatch" and f.file == "README.md",
    ),
    Planted(
        "the swapped `(targets, logits)` loss arguments",
        "api-contract",
        lambda f: f.kind == "loss-arguments-swapped",
    ),
)


@dataclass(frozen=True, slots=True)
class Tally:
    """What became of one planted breakage: ``caught``, or why not in the words of its check's
    outcome ("unavailable", "skipped", "error", "pass", or "not run" when it was not planned)."""

    planted: Planted
    caught: bool
    outcome: str


def tally(report: Report) -> list[Tally]:
    out = []
    for planted in PLANTED:
        result = report.result_for(planted.check)
        caught = result is not None and any(map(planted.caught_by, result.findings))
        outcome = "not run" if result is None else str(result.outcome)
        if result is None and report.plan is not None:
            planned = next((c for c in report.plan.checks if c.name == planted.check), None)
            if planned is not None and not planned.available:
                outcome = str(Outcome.UNAVAILABLE)
        out.append(Tally(planted, caught, outcome))
    return out


def has_torch(python: str) -> bool:
    """Can ``python`` import torch (with the sandbox's flags: no user site-packages)?"""
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"
    try:
        done = subprocess.run([python, "-s", "-c", probe], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def run_demo(*, fmt: Format = "text", keep: Path | None = None) -> int:
    from gradgate.bot.pipeline import Request, run_request

    python = os.environ.get("GRADGATE_PYTHON") or None
    python = None if python is None else interpreter(python)
    if not has_torch(python or sys.executable):
        sys.stderr.write(render_template("demo_no_torch.txt.j2", python=python or sys.executable))
        return Verdict.ERROR.exit_code
    with tempfile.TemporaryDirectory(prefix="gradgate-demo-") as scratch:
        root = keep if keep is not None else Path(scratch) / "tiny-classifier"
        if root.exists() and any(root.iterdir()):
            raise GradgateError(f"{root} is not empty; give --keep a new or empty directory")
        root.mkdir(parents=True, exist_ok=True)
        build_example(root)
        sys.stderr.write(render_template("demo_intro.txt.j2", root=root, branch=PR_BRANCH))
        sys.stderr.flush()
        report = run_request(Request(repo_path=root, base="main", head=PR_BRANCH, python=python))
        sys.stdout.write(render(report, fmt))
        sys.stdout.flush()
    tallies = tally(report)
    worked = report.verdict is Verdict.FAILURE and all(t.caught for t in tallies)
    outro = render_template(
        "demo_outro.txt.j2",
        worked=worked,
        keep=keep,
        tallies=tallies,
        python=python or sys.executable,
    )
    sys.stderr.write(outro)
    return 0 if worked else Verdict.ERROR.exit_code
