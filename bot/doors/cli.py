"""The `gradgate` command: parse arguments, call one function, return an exit code.

Exit codes (pre-commit style, one place): 0 success, 1 a check failed, 2 gradgate could not decide.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from gradgate.bot import __version__
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates.escape import plain
from gradgate.checks.errors import GradgateError, UsageError

EXIT_ERROR = Verdict.ERROR.exit_code


def _parser() -> argparse.ArgumentParser:
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
    action.add_argument("--stage", choices=("all", "plan", "check", "publish"), default="all")
    action.add_argument("--repo", type=Path, default=Path("."), help="the checkout (default: .)")
    action.add_argument("--results", type=Path, default=Path("gradgate-results"))
    action.add_argument("--check", help="the check the `check` stage runs")
    action.add_argument(
        "--python", default=os.environ.get("GRADGATE_PYTHON") or None, metavar="PATH"
    )
    action.add_argument("--workflow", help="the checks workflow `/recheck` re-runs (a file name)")
    action.add_argument("--bot-login", default="github-actions[bot]", help="gradgate's login")
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


@contextmanager
def _progress(stream: TextIO, *, after_s: float = 1.0) -> Iterator[Callable[[str], None]]:
    """Say what gradgate is doing on stderr, but only for steps that take over ``after_s``."""
    timer: list[threading.Timer] = []

    def step(message: str) -> None:
        for t in timer:
            t.cancel()
        timer.clear()
        t = threading.Timer(
            after_s, lambda: print(f"gradgate: {message}…", file=stream, flush=True)
        )
        t.daemon = True
        t.start()
        timer.append(t)

    try:
        yield step
    finally:
        for t in timer:
            t.cancel()


def _request(args: argparse.Namespace) -> object:
    from gradgate.bot.pipeline import Request

    only = tuple(args.only) if args.only else None
    if only:
        from gradgate.checks import REGISTRY

        unknown = [c for c in only if c not in REGISTRY]
        if unknown:
            raise UsageError(f"unknown check {unknown[0]!r} (known: {', '.join(REGISTRY)})")
    base = args.base or _default_base(args.repo, args.head)
    return Request(
        repo_path=args.repo,
        base=base,
        head=args.head,
        config_file=args.config,
        only=only,
        python=args.python,
        sandbox_default=getattr(args, "sandbox", "auto"),
    )


def _default_base(repo_path: Path, head: str) -> str:
    """The branch a change is usually compared with; the first of these that exists.

    One that is the head itself (`gradgate check` run on main) would compare the head with
    itself and pass having checked nothing: that is a usage error, with advice.
    """
    from gradgate.bot.git.repository import GitRepository

    repo = GitRepository(repo_path)
    for candidate in ("main", "master", "origin/HEAD"):
        try:
            sha = repo.resolve(candidate)
        except GradgateError:
            continue
        if sha == repo.resolve(head):
            raise UsageError(
                f"the default base `{candidate}` is the head `{head}` itself, so there is "
                "nothing to compare; name the base with --base (e.g. --base origin/main), "
                "or run gradgate on the branch that holds your change"
            )
        return candidate
    raise UsageError("no `main`, `master` or `origin/HEAD` here; name the base with --base")


def _check(args: argparse.Namespace) -> int:
    from gradgate.bot.pipeline import Request, error_report, run_request
    from gradgate.bot.report.render import render

    request = _request(args)
    assert isinstance(request, Request)
    try:
        with _progress(sys.stderr) as step:
            report = run_request(request, progress=step)
    except GradgateError as exc:
        report = error_report(request, exc)
    sys.stdout.write(render(report, args.format))
    return report.verdict.exit_code


def _plan(args: argparse.Namespace) -> int:
    from gradgate.bot.pipeline import Request, plan_request
    from gradgate.bot.report.render import render_plan

    request = _request(args)
    assert isinstance(request, Request)
    planned = plan_request(request, for_checks=False)
    if args.format == "github-matrix":
        from gradgate.bot.github.matrix import github_matrix

        sys.stdout.write(github_matrix(planned.plan, planned.policy.config))
    else:
        sys.stdout.write(render_plan(planned.plan, args.format))
    return 0


def _init(args: argparse.Namespace) -> int:
    from gradgate.bot.config.model import CONFIG_FILENAME
    from gradgate.bot.config.starter import starter_config
    from gradgate.bot.git.repository import GitRepository

    repo = GitRepository(args.repo)
    if args.workflows:
        from gradgate.bot.github.workflows import write_workflows

        for path in write_workflows(repo.root, action=args.action, force=args.force):
            print(f"wrote {path}")
        return 0
    target = repo.root / CONFIG_FILENAME
    if target.exists() and not args.force and not args.print:
        raise UsageError(f"{target} already exists; use --force to overwrite it")
    try:
        head = repo.resolve("HEAD")
    except GradgateError:  # a repository with no commit yet
        text = starter_config(())
    else:
        text = starter_config(repo.list_files(head), lambda path: repo.read(head, path))
    if args.print:
        sys.stdout.write(text)
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}; review the zones, commit it, then run `gradgate check`")
    return 0


def _schema(args: argparse.Namespace) -> int:
    from gradgate.bot.config.schema import config_schema

    print(json.dumps(config_schema(), indent=2))
    return 0


def _action(args: argparse.Namespace) -> int:
    from gradgate.bot.doors.action import Settings, run_action

    return run_action(
        Settings(
            env=os.environ,
            stage=args.stage,
            repo_path=args.repo,
            results=args.results,
            check=args.check,
            python=args.python,
            workflow=args.workflow,
            bot_login=args.bot_login,
        )
    )


def _demo(args: argparse.Namespace) -> int:
    from gradgate.bot.doors.demo import run_demo

    return run_demo(fmt=args.format, keep=args.keep)


def _serve(args: argparse.Namespace) -> int:
    from gradgate.bot.doors.app import serve

    return serve(host=args.host, port=args.port, workers=args.workers, data_dir=args.data_dir)


def _worker(args: argparse.Namespace) -> int:
    from gradgate.bot.app.jobs import Queue
    from gradgate.bot.doors.worker import work

    return work(
        queue=Queue(args.queue),
        threads=args.threads,
        data_dir=args.data_dir,
        gpu_workers=args.gpu_workers,
    )


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "check": _check,
    "plan": _plan,
    "init": _init,
    "schema": _schema,
    "demo": _demo,
    "action": _action,
    "serve": _serve,
    "worker": _worker,
}


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # A file name that is not UTF-8 reaches the report as surrogates; print them escaped
        # rather than crash on the way out (the report escapes them first; this is the net).
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except GradgateError as exc:
        print(f"gradgate: error: {plain(exc, lines=True)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("gradgate: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        print(
            f"gradgate: internal error: {type(exc).__name__}: {plain(exc, lines=True)}\n"
            "This is a bug in gradgate; nothing was passed. "
            "Please report it with the command you ran.",
            file=sys.stderr,
        )
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
