"""`gradgate demo`: build the bundled example repo with a PR of quiet breakages, gate it, print it.

Exits 0 when the tour worked (the report inside says failure, as planted) and 2 when gradgate
itself broke, a planted finding (the protected line, the README/config batch size, the stray
`.detach()`) went missing, or the interpreter that runs the example's model has no torch (then it
says what to install). That interpreter is gradgate's own, or GRADGATE_PYTHON.
"""

from __future__ import annotations

import importlib.resources
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from gradgate.bot.report.render import Format, render
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates import render_template
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
    kinds = {f.kind for r in report.results for f in r.findings}
    detached = any(
        f.kind == "gradient-lost-gradient" and f.message.startswith("`proj.*`")
        for r in report.results
        for f in r.findings
    )  # the stray .detach()
    planted = {"protected-line-changed", "doc-value-mismatch"} <= kinds and detached
    worked = report.verdict is Verdict.FAILURE and planted
    sys.stderr.write(render_template("demo_outro.txt.j2", worked=worked, keep=keep))
    return 0 if worked else Verdict.ERROR.exit_code
