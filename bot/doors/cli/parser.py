"""The `gradgate` command line: its commands and their options (argparse), and nothing else."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from gradgate.bot import __version__


def interpreter(value: str) -> str:
    """``--python`` and GRADGATE_PYTHON: a path with a folder in it is read against the
    directory it was given in, since user code runs elsewhere (issue 36: `--python
    .venv/bin/python` failed with "No such file or directory"); a bare name (`python3.11`) is
    looked up on PATH when the child starts. Not resolved further: a venv's python is a link
    whose target is another environment."""
    if os.sep in value and not os.path.isabs(value):
        return os.path.abspath(value)
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradgate", description="A CI gatekeeper for PyTorch repositories."
    )
    parser.add_argument("--version", action="version", version=f"gradgate {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def revisions(p: argparse.ArgumentParser) -> None:
        p.add_argument("--repo", type=Path, default=Path("."), help="repository (default: .)")
        p.add_argument(
            "--base", help="base revision (default: main, else master, else origin/HEAD)"
        )
        p.add_argument("--head", default="HEAD", help="head revision (default: HEAD)")
        p.add_argument("--config", type=Path, help="use this config instead of .gradgate.yml")
        p.add_argument("--only", action="append", metavar="CHECK", help="run only this check")
        p.add_argument(
            "--python",
            default=os.environ.get("GRADGATE_PYTHON") or None,
            type=interpreter,
            metavar="PATH",
            help="interpreter that runs your model code, e.g. your training env's python "
            "(default: GRADGATE_PYTHON, else `python:` in .gradgate.yml, else gradgate's own)",
        )

    check = sub.add_parser("check", help="run the gate on base..head and print the report")
    revisions(check)
    check.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    check.add_argument(
        "--sandbox",
        choices=("auto", "require"),
        default="auto",
        help="sandbox mode where .gradgate.yml has no `sandbox:`; require: model code only "
        "under bubblewrap (default: auto)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="compute every model result again: neither read nor write the result cache "
        "($XDG_CACHE_HOME/gradgate, else ~/.cache/gradgate; docs/caching.md)",
    )
    check.add_argument(
        "--fork-pr",
        type=int,
        metavar="N",
        help="the head is fork PR N's: its results are cached for that PR only",
    )
    check.add_argument(
        "--untrusted-head",
        action="store_true",
        help="the head is a fork's: never adopt its .gradgate.yml, and run model code only "
        "under bubblewrap whatever the config says (the Action's publishing workflow)",
    )
    plan = sub.add_parser("plan", help="show touched zones and which checks would run (no torch)")
    revisions(plan)
    plan.add_argument(
        "--format",
        choices=("text", "json", "github-matrix"),
        default="text",
        help="github-matrix: job outputs for a GitHub Actions workflow (append to $GITHUB_OUTPUT)",
    )
    init = sub.add_parser("init", help="write a commented starter .gradgate.yml")
    init.add_argument("--repo", type=Path, default=Path("."))
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    init.add_argument(
        "--print", action="store_true", help="print the proposed file instead of writing it"
    )
    init.add_argument(
        "--no-factory",
        action="store_true",
        help="do not guess, build and write a model factory (gradgate_factory.py)",
    )
    init.add_argument(
        "--python",
        default=os.environ.get("GRADGATE_PYTHON") or None,
        type=interpreter,
        metavar="PATH",
        help="interpreter that builds the guessed model once, e.g. your training env's python",
    )
    init.add_argument(
        "--workflows",
        action="store_true",
        help="write the GitHub Actions workflows instead (.github/workflows/gradgate*.yml)",
    )
    init.add_argument(
        "--action",
        metavar="OWNER/REPO@SHA",
        help="with --workflows: the gradgate action the workflows use, pinned to a commit",
    )
    action = sub.add_parser(
        "action", help="the GitHub Action: gate the pull request this workflow run is about"
    )
    action.add_argument(
        "--stage", choices=("all", "plan", "check", "publish", "gate"), default="all"
    )
    action.add_argument("--repo", type=Path, default=Path("."), help="the checkout (default: .)")
    action.add_argument("--results", type=Path, default=Path("gradgate-results"))
    action.add_argument("--check", help="the check the `check` stage runs")
    action.add_argument(
        "--python",
        default=os.environ.get("GRADGATE_PYTHON") or None,
        type=interpreter,
        metavar="PATH",
    )
    action.add_argument("--workflow", help="the checks workflow `/recheck` re-runs (a file name)")
    action.add_argument("--bot-login", default="github-actions[bot]", help="gradgate's login")
    action.add_argument(
        "--uploaded",
        type=Path,
        default=Path("gradgate-uploaded"),
        help="the `gate` stage: the pull request run's results, as downloaded (untrusted)",
    )
    for name, what in (("pr", "pull request"), ("head", "head SHA"), ("base-ref", "base branch")):
        action.add_argument(f"--{name}", help=f"the trusted `check` stage: the gate's {what}")
    sub.add_parser("schema", help="print the config's JSON Schema")
    demo = sub.add_parser("demo", help="build the bundled example repo and gate its PR")
    demo.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    demo.add_argument("--keep", type=Path, help="build the example here and keep it")
    _app_commands(sub)
    return parser


def _app_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`serve` and `worker`: the GitHub App (settings come from GRADGATE_* variables)."""
    data_help = "queue, mirrors and worktrees (default: GRADGATE_DATA_DIR)"
    serve = sub.add_parser("serve", help="run the GitHub App's webhook server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers", type=int, default=0, metavar="N", help="also start N workers (one machine)"
    )
    serve.add_argument("--data-dir", type=Path, help=data_help)
    worker = sub.add_parser("worker", help="run GitHub App jobs from the queue")
    worker.add_argument("--queue", choices=("cpu", "gpu"), default="cpu")
    worker.add_argument("--threads", type=int, default=1, help="jobs run at once (default 1)")
    worker.add_argument("--data-dir", type=Path, help=data_help)
    worker.add_argument(
        "--gpu-workers",
        action="store_true",
        help="GPU workers exist: a CPU worker sends checks that need a GPU to the gpu queue",
    )
