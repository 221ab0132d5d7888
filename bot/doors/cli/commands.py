"""The `gradgate` commands, one function each: arguments in, the result on stdout, an exit code out.

Exit codes (pre-commit style): 0 success, 1 a check failed, 2 gradgate could not decide.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gradgate.bot.doors.cli.output import docs_url, emit, progress
from gradgate.bot.templates import render_template
from gradgate.checks.errors import GradgateError, UsageError

if TYPE_CHECKING:  # the pipeline is imported when a command needs it: `--help` stays quick
    from gradgate.bot.pipeline import Request
    from gradgate.checks.cache.store import FolderStore


def _request(args: argparse.Namespace) -> Request:
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
        options=_options(args),
        untrusted_head=getattr(args, "untrusted_head", False),
        cache=None if getattr(args, "no_cache", True) else folder_store(),
        fork_pr=getattr(args, "fork_pr", None),
    )


def folder_store() -> FolderStore:
    """The CLI's result cache: the user's cache folder (checks.cache.store)."""
    from gradgate.checks.cache.store import FolderStore, default_folder

    return FolderStore(default_folder())


def _options(args: argparse.Namespace) -> tuple[str, ...]:
    """The options that change the result, for the report's re-run hint: as typed, except an
    absolute path below the current directory, which is shown relative to it."""
    out: list[str] = []
    if args.repo != Path("."):
        out += ["--repo", _shown(args.repo)]
    if args.config is not None:
        out += ["--config", _shown(args.config)]
    for name in args.only or ():
        out += ["--only", name]
    if getattr(args, "sandbox", "auto") != "auto":
        out += ["--sandbox", args.sandbox]
    python = getattr(args, "python", None)
    if python:  # the model must re-run under the same interpreter
        out += ["--python", _shown(Path(python)) if os.sep in python else python]
    return tuple(out)


def _shown(path: Path) -> str:
    if path.is_absolute() and path.is_relative_to(Path.cwd()):
        return str(path.relative_to(Path.cwd()))
    return str(path)


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
    from dataclasses import replace

    from gradgate.bot.pipeline import error_report, run_request
    from gradgate.bot.report.render import render

    request = _request(args)
    try:
        with progress(sys.stderr) as step:
            report = run_request(request, progress=step)
    except GradgateError as exc:
        report = error_report(request, exc)
    emit(render(replace(report, docs_url=docs_url()), args.format))
    return report.verdict.exit_code


def _plan(args: argparse.Namespace) -> int:
    from gradgate.bot.pipeline import plan_request
    from gradgate.bot.report.render import render_plan

    request = _request(args)
    planned = plan_request(request, for_checks=False)
    if args.format == "github-matrix":
        from gradgate.bot.github.matrix import github_matrix

        emit(github_matrix(planned.plan, planned.policy.config))
    else:
        emit(render_plan(planned.plan, args.format))
    return 0


def _init(args: argparse.Namespace) -> int:
    from gradgate.bot.config.model import CONFIG_FILENAME
    from gradgate.bot.config.starter import starter_config
    from gradgate.bot.git.repository import GitRepository

    repo = GitRepository(args.repo)
    if args.workflows:
        from gradgate.bot.github.workflows import write_workflows

        for path in write_workflows(repo.root, action=args.action, force=args.force):
            emit(render_template("cli_init.txt.j2", wrote=path, workflow=True))
        return 0
    target = repo.root / CONFIG_FILENAME
    unbuilt = False  # model code found, and no model built from it: exit 2 once all is written
    if target.exists() and not args.force and not args.print:
        raise UsageError(f"{target} already exists; use --force to overwrite it")
    try:
        head = repo.resolve("HEAD")
    except GradgateError:  # a repository with no commit yet
        text = starter_config(())
    else:
        paths, read = repo.list_files(head), lambda path: repo.read(head, path)
        entrypoint = factory_file = recipe = None
        if not args.print and not args.no_factory:
            from gradgate.bot.doors.cli.init_factory import write_factory

            if args.python:  # one that cannot run is an error, not a template to fill in
                from gradgate.checks.sandbox.probe import interpreter

                interpreter(args.python, os.environ.get("PATH", os.defpath))

            made = write_factory(repo.root, paths, read, python=args.python, force=args.force)
            emit(render_template("cli_init_factory.txt.j2", outcome=made))
            entrypoint, recipe, unbuilt = made.entrypoint, made.recipe, made.unbuilt
            factory_file = None if made.path is None else made.path.name
        text = starter_config(
            paths, read, entrypoint=entrypoint, factory_file=factory_file, recipe=recipe
        )
    if args.print:
        emit(text)
        return 0
    target.write_text(text, encoding="utf-8")
    # The next command, as it works from here (issue 36): the repository and interpreter too.
    shown = argparse.Namespace(repo=args.repo, config=None, only=None, python=args.python)
    then = ["gradgate", "check", *_options(shown)]
    emit(render_template("cli_init.txt.j2", wrote=target, workflow=False, then=then))
    return 2 if unbuilt else 0


def _schema(args: argparse.Namespace) -> int:
    from gradgate.bot.config.schema import config_schema

    emit(json.dumps(config_schema(), indent=2) + "\n")
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
            uploaded=args.uploaded,
            pr=args.pr,
            head=args.head,
            base_ref=args.base_ref,
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
