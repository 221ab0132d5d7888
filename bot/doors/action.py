"""`gradgate action`: the GitHub Action's door. It reads what GitHub Actions puts in the
environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_TOKEN, GITHUB_API_URL,
GITHUB_REPOSITORY...) and does one stage of the work:

  all      pull_request: plan, pending statuses, the checks in a child process without
           credentials, then the comment, the final statuses and the job summary
  plan     pull_request: the plan as job outputs and a plan record, for a fan-out workflow
  check    pull_request: one check (--check) in a child without credentials -> its JSON result
  publish  pull_request or workflow_run: the plan record and results in --results -> published

An `issue_comment` event is a possible `/recheck`, whatever the stage: it only calls the API and
never checks out or runs the PR's code. This module translates; the parts are in bot.github.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradgate.bot.config.model import config_hash
from gradgate.bot.doors.isolated import run_checks
from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy
from gradgate.bot.github.commands import CommentEvent
from gradgate.bot.github.events import PullRequestEvent, Skip, WorkflowRunEvent, read_event
from gradgate.bot.github.matrix import github_matrix
from gradgate.bot.github.publish import Target, publish_pending, publish_report
from gradgate.bot.github.recheck import handle_recheck
from gradgate.bot.github.results import CHECK_FILE, PLAN_FILE, merge, plan_record, record_pr
from gradgate.bot.github.statuses import final_statuses
from gradgate.bot.pipeline import Request, error_report, plan_request
from gradgate.bot.report.render import Report, as_json, render
from gradgate.bot.templates import render_template
from gradgate.checks.errors import GitHubError, GradgateError, UsageError

STAGES = ("all", "plan", "check", "publish")
DEFAULT_BOT = "github-actions[bot]"  # who posts with an Action's GITHUB_TOKEN
SUMMARY_LIMIT = 1_000_000  # GitHub caps a step summary at 1 MiB


@dataclass(frozen=True, slots=True)
class Settings:
    env: Mapping[str, str]
    stage: str = "all"
    repo_path: Path = Path(".")
    results: Path = Path("gradgate-results")
    check: str | None = None
    python: str | None = None
    workflow: str | None = None  # the checks workflow /recheck re-runs; default: this one
    bot_login: str = DEFAULT_BOT

    def need(self, name: str) -> str:
        value = self.env.get(name)
        if not value:
            raise UsageError(render_template("action_missing.txt.j2", variable=name).strip())
        return value


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    """GRADGATE_GITHUB_RETRIES / _BACKOFF_S / _WRITE_INTERVAL_S override PyGithub's defaults."""
    fields = {"total": "RETRIES", "backoff_s": "BACKOFF_S", "write_interval_s": "WRITE_INTERVAL_S"}
    values: dict[str, Any] = {}
    for field, suffix in fields.items():
        raw = env.get(f"GRADGATE_GITHUB_{suffix}")
        if raw:
            try:
                values[field] = int(raw) if field == "total" else float(raw)
            except ValueError:
                raise UsageError(f"GRADGATE_GITHUB_{suffix} is not a number: {raw!r}") from None
    if "write_interval_s" in values:
        values["request_interval_s"] = min(values["write_interval_s"], 0.25)
    if "backoff_s" in values:
        values["secondary_rate_wait_s"] = max(values["backoff_s"], 0.0) * 60
    return RetryPolicy(**values)


def _client(s: Settings) -> GitHubClient:
    return GitHubClient(
        Connection(
            api_url=s.env.get("GITHUB_API_URL") or "https://api.github.com",
            token=s.need("GITHUB_TOKEN"),
            repo=s.need("GITHUB_REPOSITORY"),
            retry=retry_policy(s.env),
        )
    )


def _say(what: str, **values: Any) -> None:
    text = render_template("action.txt.j2", what=what, **values)
    if text.strip():
        print(text.rstrip("\n"), flush=True)


def run_action(s: Settings) -> int:
    if s.stage not in STAGES:
        raise UsageError(f"unknown stage {s.stage!r} (one of: {', '.join(STAGES)})")
    name = s.need("GITHUB_EVENT_NAME")
    path = Path(s.need("GITHUB_EVENT_PATH"))
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the event payload {path}: {exc}") from exc
    event = read_event(name, payload)
    if isinstance(event, Skip):
        _say("skipped", event=event.event, action=event.action, why=str(event.why))
        return 0
    if isinstance(event, CommentEvent):
        handled = handle_recheck(_client(s), event, bot_login=s.bot_login, workflow=_workflow(s))
        _say(
            "recheck",
            outcome=str(handled.outcome),
            ignored=str(handled.ignored),
            run_id=handled.run_id,
        )
        return 0
    if isinstance(event, WorkflowRunEvent):
        if s.stage != "publish":
            raise UsageError("a workflow_run event only publishes: use the `publish` stage")
        return _publish_run(s, event)
    if s.stage == "plan":
        return _plan(s, event)
    if s.stage == "check":
        return _check(s, event)
    if s.stage == "publish":
        report = _merged(s, event.head_sha, _target(s, event.number, s.env.get("GITHUB_RUN_ID")))
        return _publish(s, report, event.number, event.head_sha)
    return _gate(s, event)


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
    )


def _gate(s: Settings, event: PullRequestEvent) -> int:
    """Stage `all`: everything in this job; the checks in a child without credentials."""
    client = _client(s)
    target = _target(s, event.number, s.env.get("GITHUB_RUN_ID"))
    request = _request(s, event)
    try:
        planned = plan_request(request, for_checks=False)
    except GradgateError as exc:
        report = error_report(request, exc)
    else:
        try:
            publish_pending(
                client,
                planned.plan,
                head_sha=planned.head_sha,
                base_sha=planned.base_sha,
                config_hash=config_hash(planned.policy.text) if planned.policy.text else None,
                target=target,
            )
        except GitHubError as exc:  # the final statuses matter; pending ones are a courtesy
            _say("pending-failed", error=str(exc))
        report, _ = run_checks(request, environ=s.env)
    return _publish(s, report, event.number, event.head_sha, target=target, exit_with_verdict=True)


def _plan(s: Settings, event: PullRequestEvent) -> int:
    request = _request(s, event)
    try:
        planned = plan_request(request, for_checks=False)
    except GradgateError as exc:
        record = plan_record(
            pr=event.number, head_sha=event.head_sha, base_sha=event.base_sha, config_hash=None,
            config_source=None, plan=None, error=str(exc),
        )  # fmt: skip
        outputs = 'matrix={"include":[]}\nrun=false\nchecks=\n'
    else:
        text = planned.policy.text
        record = plan_record(
            pr=event.number, head_sha=planned.head_sha, base_sha=planned.base_sha,
            config_hash=config_hash(text) if text else None, config_source=planned.policy.source,
            plan=planned.plan,
        )  # fmt: skip
        outputs = github_matrix(planned.plan, planned.policy.config)
    _write_json(s.results / PLAN_FILE, record)
    if s.env.get("GITHUB_OUTPUT"):
        with open(s.env["GITHUB_OUTPUT"], "a", encoding="utf-8") as out:
            out.write(outputs)
    checks = next(line for line in outputs.splitlines() if line.startswith("checks="))[7:]
    _say("planned", checks=checks, path=s.results / PLAN_FILE)
    return 0


def _check(s: Settings, event: PullRequestEvent) -> int:
    if not s.check:
        raise UsageError("the `check` stage needs --check NAME (the matrix's `check`)")
    report, data = run_checks(_request(s, event, only=(s.check,)), environ=s.env)
    path = s.results / CHECK_FILE.format(name=s.check)
    _write_json(path, data if data is not None else _report_json(report))
    _say("checked", check=s.check, verdict=str(report.verdict), path=path)
    return report.verdict.exit_code  # a red job is what `/recheck` re-runs


def _publish_run(s: Settings, event: WorkflowRunEvent) -> int:
    """A finished checks run, maybe from a fork: trust GitHub's event, verify the results' PR."""
    run_target = _target(s, 0, str(event.run_id))
    try:
        number = record_pr(_read_json(s.results / PLAN_FILE))
    except (UsageError, ValueError) as exc:  # no PR to comment on: an error status at least
        _error_statuses(s, event.head_sha, str(exc), run_target)
        raise UsageError(str(exc)) from exc
    pull = _client(s).pull(number)
    if (pull.head_repo, pull.head_ref) != (event.head_repo, event.head_branch):
        raise UsageError(
            render_template(
                "action_wrong_pr.txt.j2",
                number=number,
                repo=event.head_repo,
                branch=event.head_branch,
            ).strip()
        )
    target = _target(s, number, str(event.run_id))
    return _publish(s, _merged(s, event.head_sha, target), number, event.head_sha, target=target)


def _merged(s: Settings, head_sha: str, target: Target) -> Report:
    """The report the results directory makes for ``head_sha``; if it is unreadable, an error
    status is set before the error is raised, so the required status does not hang."""
    try:
        return merge(_read_json(s.results / PLAN_FILE), _check_files(s), head_sha=head_sha)
    except (UsageError, ValueError) as exc:
        _error_statuses(s, head_sha, str(exc), target)
        raise UsageError(str(exc)) from exc


def _error_statuses(s: Settings, head_sha: str, message: str, target: Target) -> None:
    report = dataclasses.replace(
        error_report(Request(repo_path=s.repo_path, base="", head=head_sha), message),
        head_sha=head_sha,
    )
    client = _client(s)
    for status in final_statuses(report, target_url=target.target_url):
        client.set_status(head_sha, status)


def _publish(
    s: Settings,
    report: Report,
    number: int,
    head_sha: str,
    *,
    target: Target | None = None,
    exit_with_verdict: bool = False,
) -> int:
    server = s.env.get("GITHUB_SERVER_URL") or "https://github.com"
    report = dataclasses.replace(
        report,
        head_sha=report.head_sha or head_sha,
        rerun="pr",
        repo_url=f"{server}/{s.need('GITHUB_REPOSITORY')}",
    )
    _summary(s, report)
    target = target or _target(s, number, s.env.get("GITHUB_RUN_ID"))
    published = publish_report(_client(s), report, target)
    _say(
        "published", verdict=str(report.verdict), head_sha=report.head_sha, number=number,
        current=published.current, head_now=published.head_now,
    )  # fmt: skip
    return report.verdict.exit_code if exit_with_verdict else 0


def _target(s: Settings, number: int, run_id: str | None) -> Target:
    server = s.env.get("GITHUB_SERVER_URL") or "https://github.com"
    url = f"{server}/{s.need('GITHUB_REPOSITORY')}/actions/runs/{run_id}" if run_id else None
    return Target(number=number, bot_login=s.bot_login, target_url=url)


def _workflow(s: Settings) -> str:
    """The checks workflow's file: --workflow, else the one running now (GITHUB_WORKFLOW_REF is
    owner/repo/.github/workflows/FILE@ref)."""
    if s.workflow:
        return s.workflow
    ref = s.need("GITHUB_WORKFLOW_REF")
    return ref.split("@", 1)[0].rsplit("/", 1)[-1]


def _summary(s: Settings, report: Report) -> None:
    path = s.env.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(render(report, "markdown")[:SUMMARY_LIMIT])


def _check_files(s: Settings) -> list[Any]:
    return [_read_json(p) for p in sorted(s.results.glob(CHECK_FILE.format(name="*")))]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _report_json(report: Report) -> Any:
    return as_json(report)
