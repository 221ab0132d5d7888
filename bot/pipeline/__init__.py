"""The pipeline as numbered steps: config -> diff -> zones/plan -> run -> verdict -> report.

Doors (CLI, Action, App) build a Request and turn the Report back into their transport.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gradgate.bot.config.model import Config, config_hash
from gradgate.bot.git.repository import GitRepository
from gradgate.bot.pipeline.policy import (
    Policy,
    Request,
    config_label,
    read_policy,
    uncommitted_config,
)
from gradgate.bot.pipeline.step import run_check
from gradgate.bot.plan.comment_only import MAX_FILES
from gradgate.bot.plan.plan import (
    Plan,
    PlannedCheck,
    changed_paths,
    make_plan,
    paths_requiring,
    zones_for_check,
)
from gradgate.bot.plan.python_edits import PYTHON, PythonEdits, classify
from gradgate.bot.plan.zones.gaps import Tracked, unmatched
from gradgate.bot.report.lines import diff_lines
from gradgate.bot.report.render import Report
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, CheckSettings, Outcome, settings_as
from gradgate.checks.cache.results import ResultCache
from gradgate.checks.context import CheckContext
from gradgate.checks.diff import FileChange
from gradgate.checks.errors import GradgateError, UsageError
from gradgate.checks.sandbox.isolation import SandboxMode

__all__ = [
    "Hold",
    "Planned",
    "Policy",
    "Progress",
    "Request",
    "config_label",
    "error_report",
    "plan_request",
    "python_edits",
    "read_policy",
    "run_check",
    "run_request",
    "uncommitted_config",
]

Progress = Callable[[str], None]
# Step 5's gate (App mode): a planned check and its settings -> why it must wait instead of
# running now (the words for its status), or None to run it.
Hold = Callable[[PlannedCheck, CheckSettings], str | None]


def _quiet(_: str) -> None:
    pass


@dataclass(frozen=True, slots=True)
class Planned:
    repo: GitRepository
    base_sha: str  # merge-base(base, head)
    head_sha: str
    policy: Policy
    changes: tuple[FileChange, ...]
    plan: Plan


def plan_request(request: Request, *, for_checks: bool, progress: Progress = _quiet) -> Planned:
    """Steps 1-4. Never imports torch: `gradgate plan` is this function and a renderer.

    ``for_checks=False`` (plain `gradgate plan`) reads only the changed paths, which is all the
    plan needs; the checks need each file's status and changed lines.
    """
    repo = GitRepository(request.repo_path)
    base_sha, head_sha = repo.diff_range(request.base, request.head)
    if base_sha == head_sha and repo.resolve(request.base) != head_sha:
        raise UsageError(
            f"the head `{request.head}` is already part of the base `{request.base}` (an "
            "ancestor of it), so there is no change to check; did you swap --base and --head?"
        )
    policy = read_policy(repo, request, base_sha, head_sha)  # 1 config
    progress("reading the diff")  # 2 diff
    changes: tuple[FileChange, ...] = ()
    if for_checks:
        changes = repo.changes(base_sha, head_sha)
        paths, files = changed_paths(changes), len(changes)
    else:
        paths, files = repo.changed_paths(base_sha, head_sha)
    gaps = zone_gaps(policy.config, repo, head_sha)
    edits = python_edits(repo, base_sha, head_sha, paths)
    plan = make_plan(  # 3 zones, 4 plan
        policy.config,
        paths,
        changed_files=files,
        config_origin=policy.origin,
        only=request.only,
        non_semantic=edits.non_semantic,
        gradient_edits=edits.gradient,
        unscanned=edits.unscanned,
        unmatched=gaps,
        markers_at_head=bool(policy.config.zones) or has_markers(repo, policy.config, head_sha),
    )
    if request.config_file is None and uncommitted_config(repo, head_sha):
        plan = replace(plan, config_uncommitted=True)
    _only_planned(plan, request.only)
    return Planned(repo, base_sha, head_sha, policy, changes, plan)


def zone_gaps(config: Config, repo: GitRepository, head_sha: str) -> dict[str, tuple[str, ...]]:
    """The zone patterns that match no file at head (bot.plan.zones.gaps); none without zones
    (and git's listing is then not read)."""
    if not config.zones:
        return {}
    return unmatched(config.zones, Tracked(repo.listing(head_sha)))


def _only_planned(plan: Plan, only: Sequence[str] | None) -> None:
    """`--only CHECK` for a check this change does not require would pass without checking."""
    unplanned = [c.name for c in plan.checks if c.name in (only or ()) and not c.run]
    if unplanned and plan.changed_files:
        names = ", ".join(f"`{name}`" for name in unplanned)
        raise UsageError(
            f"--only {names}: this change does not require it (no changed file is in a zone "
            "that requires it), so nothing would be checked; run `gradgate plan` to see which "
            "checks this change needs, or drop --only"
        )


def has_markers(repo: GitRepository, config: Config, head_sha: str) -> bool:
    """Whether any file at head mentions one of the `protected` check's markers."""
    from gradgate.checks.protected.settings import ProtectedSettings

    settings = settings_as(ProtectedSettings, config.settings_for("protected"))
    return repo.mentions(head_sha, settings.markers)


def python_edits(
    repo: GitRepository, base_sha: str, head_sha: str, paths: Sequence[str]
) -> PythonEdits:
    """The changed Python files, each read once at base and head: which are comment-only, which
    lines add or remove gradient-sensitive code (bot.plan.python_edits).

    A large change is not "only comments", and reading it would slow every plan: past
    MAX_FILES candidates nothing is read, and the plan treats every path as unscanned.
    """
    candidates = [p for p in paths if p.endswith(PYTHON)] if len(paths) <= 4 * MAX_FILES else None
    if candidates is None or len(candidates) > MAX_FILES:
        return PythonEdits(unscanned=paths)
    return classify((p, repo.read(base_sha, p), repo.read(head_sha, p)) for p in candidates)


def interpreter(request: Request, config: Config, repo_root: Path) -> str | None:
    """The interpreter for user code: the request's, else the config's, else None (gradgate's).

    A relative path in the config (`.venv/bin/python`) is relative to the repository root; a
    bare name (`python3.10`) is looked up on PATH when the child starts.
    """
    if request.python:
        return request.python
    configured = config.python
    if configured is None or "/" not in configured or Path(configured).is_absolute():
        return configured
    return str(repo_root / configured)


def run_request(
    request: Request, *, progress: Progress = _quiet, hold: Hold | None = None
) -> Report:
    """Steps 1-7. Raises GradgateError only before a plan exists; doors turn it into a report.

    ``hold`` (App mode) may keep a check waiting instead of running it now.
    """
    # The model children and the sandbox behind them, imported here: `gradgate plan` never runs
    # a check, and imports only what planning needs (issue 38).
    from gradgate.checks.model.plan.ask import model_plan
    from gradgate.checks.model.session import ModelSessions

    planned = plan_request(request, for_checks=True, progress=progress)
    results = []
    python = interpreter(request, planned.policy.config, planned.repo.root)
    # Entrypoint paths may be relative to a config given with --config (checks.model.run).
    config_dir = None if request.config_file is None else request.config_file.parent.resolve()
    sandbox: SandboxMode = planned.policy.config.sandbox or request.sandbox_default
    if request.untrusted_head:
        sandbox = "untrusted"
    requiring = paths_requiring(planned.plan, planned.policy.config)
    cache = result_cache(request, planned.policy.config)
    # One sandboxed child per revision for all the model checks, ended with the gate.
    with ModelSessions(cache) as models:
        for check in planned.plan.to_run:  # 5 run
            settings = planned.policy.config.settings_for(check.name)
            waiting = hold(check, settings) if hold is not None else None
            if waiting is not None:
                waited = CheckResult(check=check.name, outcome=Outcome.WAITING, summary=waiting)
                results.append(waited)
                continue
            progress(f"running {check.name}")
            # Its own repository object: one that timed out may still be reading from its own.
            with GitRepository(planned.repo.root) as source:
                ctx = CheckContext(
                    base_sha=planned.base_sha,
                    head_sha=planned.head_sha,
                    changes=planned.changes,
                    source=source,
                    settings=settings,
                    zones=zones_for_check(planned.plan, check.name),
                    zone_owners=planned.plan.owners,
                    paths_requiring=requiring,
                    python=python,
                    model=planned.policy.config.model,
                    data=planned.policy.config.data,
                    config_dir=config_dir,
                    sandbox=sandbox,
                    user_code=request.user_code,
                    models=models,
                )
                results.append(run_check(check.name, ctx))
        described = model_plan(models)  # 5b the model plan, from the children still running
    planned_names = [check.name for check in planned.plan.to_run]
    return Report(  # 6 verdict, 7 report (rendered by the door)
        verdict=verdict_for(results, planned=planned_names),
        results=tuple(results),
        plan=planned.plan,
        base_sha=planned.base_sha,
        head_sha=planned.head_sha,
        base_ref=request.base,
        head_ref=request.head,
        config_hash=config_hash(planned.policy.text) if planned.policy.text else None,
        config_source=planned.policy.source,
        rerun="pr" if request.pr_number is not None else "cli",
        diff_lines=diff_lines(planned.changes, results),  # where GitHub takes review comments
        options=request.options,
        model_plan=described,
        plan_cached=tuple(sorted(models.plan_cached.items())),
    )


def result_cache(request: Request, config: Config) -> ResultCache | None:
    """The gate's result cache (checks.cache): the request's store, in the scope its trust
    allows; None without a store or with the config's `cache: false`."""
    if request.cache is None or not config.cache:
        return None
    if request.fork_pr is not None or request.untrusted_head:
        number = request.fork_pr if request.fork_pr is not None else request.pr_number
        return ResultCache.for_fork(request.cache, number)
    return ResultCache(request.cache)


def error_report(request: Request, error: GradgateError | str) -> Report:
    """What a door reports when gradgate could not decide: an error, never a pass."""
    return Report(
        verdict=verdict_for((), error=str(error)),
        error=str(error),
        base_ref=request.base,
        head_ref=request.head,
        rerun="pr" if request.pr_number is not None else "cli",
        options=request.options,
    )
