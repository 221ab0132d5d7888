"""The stages of `gradgate action`, and ``run_action``, which picks one for the event."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from gradgate.bot.config.model import ReviewMode, config_hash
from gradgate.bot.doors.action import trusted
from gradgate.bot.doors.action.files import output, read_json, write_json
from gradgate.bot.doors.action.publishing import error_statuses, publish, weigh_again
from gradgate.bot.doors.action.settings import STAGES, Settings, connect, say
from gradgate.bot.doors.isolated import run_checks
from gradgate.bot.github.commands import CommentEvent
from gradgate.bot.github.events import (
    LabelEvent,
    PullRequestEvent,
    Skip,
    WorkflowRunEvent,
    read_event,
)
from gradgate.bot.github.matrix import github_matrix
from gradgate.bot.github.publish import Target, publish_pending
from gradgate.bot.github.recheck import handle_recheck
from gradgate.bot.github.results import (
    CHECK_FILE,
    PLAN_FILE,
    merge,
    plan_record,
    record_review,
)
from gradgate.bot.pipeline import Request, error_report, plan_request
from gradgate.bot.report.render import Report, as_json
from gradgate.checks.cache.store import FolderStore, default_folder
from gradgate.checks.errors import GradgateError, UsageError

TRUSTED = (
    "gate",
    "check",
    "publish",
)  # the stages of gradgate-publish.yml (bot.doors.action.trusted)
_NO_JOBS = 'matrix={"include":[]}\nrun=false\nchecks=\n'


def run_action(s: Settings) -> int:
    """Exit code: the verdict's for `all` and `check` (a red job is what /recheck re-runs), 0
    once published; 2 when gradgate could not finish (the one CLI handler says why)."""
    if s.stage not in STAGES:
        raise UsageError(f"unknown stage {s.stage!r} (one of: {', '.join(STAGES)})")
    name = s.need("GITHUB_EVENT_NAME")
    event = read_event(name, read_json(Path(s.need("GITHUB_EVENT_PATH"))))
    if isinstance(event, Skip):
        say("skipped", event=event.event, action=event.action, why=str(event.why))
        return 0
    if isinstance(event, WorkflowRunEvent | CommentEvent | LabelEvent) and s.stage in TRUSTED:
        if s.stage == "check":
            return trusted.check(s)
        return trusted.gate(s, event) if s.stage == "gate" else trusted.publish_trusted(s, event)
    if isinstance(event, CommentEvent):
        handled = handle_recheck(
            connect(s), event, bot_login=s.bot_login, workflow=s.workflow_file()
        )
        say(
            "recheck",
            outcome=str(handled.outcome),
            ignored=str(handled.ignored),
            run_id=handled.run_id,
        )
        return 0
    if isinstance(event, WorkflowRunEvent | LabelEvent):
        raise UsageError(
            "workflow_run and pull_request_target events are for the `gate`, `check` and "
            "`publish` stages"
        )
    if s.stage == "gate":
        raise UsageError(
            "the `gate` stage runs on workflow_run, issue_comment and pull_request_target events"
        )
    if event.action == "closed":
        return _closed(s, event)
    stage = {"all": _gate, "plan": _plan, "check": _check, "publish": _publish_pull}[s.stage]
    code = stage(s, event)
    if event.before and event.before != event.head_sha and s.stage in ("all", "publish"):
        target = s.target(event.number, s.env.get("GITHUB_RUN_ID"))
        weigh_again(s, event.before, number=event.number, target=target)  # pushed over
    return code


def _closed(s: Settings, event: PullRequestEvent) -> int:
    """A closed PR stops counting on its head (issue 34): the stages that publish weigh the
    head again without it; the others have nothing to do."""
    if s.stage in ("all", "publish"):
        target = s.target(event.number, s.env.get("GITHUB_RUN_ID"))
        weigh_again(s, event.head_sha, number=event.number, target=target)
    say("closed", number=event.number, head_sha=event.head_sha, stage=s.stage)
    return 0


def _request(
    s: Settings, event: PullRequestEvent, *, only: tuple[str, ...] | None = None
) -> Request:
    return Request(
        repo_path=s.repo_path,
        base=event.base_sha,
        head=event.head_sha,
        only=only,
        pr_number=event.number,
        python=s.python,
        # PR code on a runner that holds tokens: only under bubblewrap, unless the config says
        # `sandbox: auto` (bubblewrap is Linux-only, so elsewhere the report says so instead).
        sandbox_default="require" if sys.platform.startswith("linux") else "auto",
        # The result cache in the runner's cache folder, which the workflow restores and saves
        # with actions/cache (docs/caching.md); a fork's results stay with its PR.
        cache=None if s.env.get("GRADGATE_NO_CACHE") else FolderStore(default_folder()),
        fork_pr=None if event.head_repo == event.repo else event.number,
    )


def _gate(s: Settings, event: PullRequestEvent) -> int:
    """Stage `all`: everything in this job; the checks in a child without credentials."""
    target = s.target(event.number, s.env.get("GITHUB_RUN_ID"))
    request = _request(s, event)
    pending = None
    review: ReviewMode = "off"
    try:
        planned = plan_request(request, for_checks=False)
    except GradgateError as exc:
        report = error_report(request, exc)
    else:
        review = planned.policy.config.report.review
        pending = publish_pending(
            connect(s),
            planned.plan,
            head_sha=planned.head_sha,
            base_sha=planned.base_sha,
            config_hash=config_hash(planned.policy.text) if planned.policy.text else None,
            target=target,
        )
        if pending.error is not None:  # the final outcome matters; the pending one is a courtesy
            say("pending-failed", error=str(pending.error))
        report, _ = run_checks(request, environ=s.env)
        if report.plan is None:  # the child died: its planned checks are errors, not pending
            report = dataclasses.replace(report, plan=planned.plan)
    publish(
        s, report, number=event.number, head_sha=event.head_sha, target=target, pending=pending,
        review=review,
    )  # fmt: skip
    return report.verdict.exit_code


def _plan(s: Settings, event: PullRequestEvent) -> int:
    """Stage `plan` (no token needed): job outputs, and the plan record for the publisher."""
    try:
        planned = plan_request(_request(s, event), for_checks=False)
    except GradgateError as exc:
        record = plan_record(
            pr=event.number, head_sha=event.head_sha, base_sha=event.base_sha, config_hash=None,
            config_source=None, plan=None, error=str(exc),
        )  # fmt: skip
        outputs = _NO_JOBS
    else:
        text = planned.policy.text
        record = plan_record(
            pr=event.number, head_sha=planned.head_sha, base_sha=planned.base_sha,
            config_hash=config_hash(text) if text else None, config_source=planned.policy.source,
            plan=planned.plan, review=planned.policy.config.report.review,
        )  # fmt: skip
        outputs = github_matrix(planned.plan, planned.policy.config)
    write_json(s.results / PLAN_FILE, record)
    output(s, outputs)
    checks = dict(line.split("=", 1) for line in outputs.splitlines())["checks"]
    say("planned", checks=checks, path=s.results / PLAN_FILE)
    return 0


def _check(s: Settings, event: PullRequestEvent) -> int:
    """Stage `check` (no token needed): one check in a child without credentials."""
    if not s.check:
        raise UsageError("the `check` stage needs --check NAME (the matrix's `check`)")
    report, data = run_checks(_request(s, event, only=(s.check,)), environ=s.env)
    path = s.results / CHECK_FILE.format(name=s.check)
    write_json(path, data if data is not None else as_json(report))
    say("checked", check=s.check, verdict=str(report.verdict), path=path)
    return report.verdict.exit_code


def _publish_pull(s: Settings, event: PullRequestEvent) -> int:
    """Stage `publish` in the pull request's own run (a same-repository fan-out)."""
    target = s.target(event.number, s.env.get("GITHUB_RUN_ID"))
    report, review = _merged(s, event.head_sha, target)
    publish(s, report, number=event.number, head_sha=event.head_sha, target=target, review=review)
    return 0


def _merged(s: Settings, head_sha: str, target: Target) -> tuple[Report, ReviewMode]:
    """The report the results directory makes for ``head_sha``, and the review mode its plan
    record names; if they are unreadable, an error status is set before the error is raised, so
    the required status does not hang."""
    try:
        checks = [read_json(p) for p in sorted(s.results.glob(CHECK_FILE.format(name="*")))]
        record = read_json(s.results / PLAN_FILE)
        return merge(record, checks, head_sha=head_sha), record_review(record)
    except (UsageError, ValueError) as exc:
        error_statuses(s, head_sha, str(exc), target)
        raise UsageError(str(exc)) from exc
