"""The trusted side of the fork-safe pair (gradgate-publish.yml, issue 17): the stages that run
in the base repository's context, with the base's gradgate and the base's config, for a finished
`pull_request` run of gradgate.yml, an `/ok-to-test <sha>` comment, or the `ok-to-test` label
(``approvals``).

  gate     which PR and head (GitHub's event, checked against the API); fetch the head as git
           objects; plan with the base's config; run the checks that only read git objects
           (`protected`, `config-docs`, `api-contract`) here; decide where the code checks'
           results come from (bot.github.fork); write the trusted plan record and job outputs
  check    one code check the gate named, for a fork's head it may run (approved, or its author
           may write), under bubblewrap, on the runners the base's `runners:` names
  publish  the trusted record and this run's results -> the comment and the check runs

Nothing a fork uploaded is published as a verdict: the gate reads its plan record only for the
PR number (checked against the run GitHub says it was), and its results only for a PR from a
branch of this repository.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from gradgate.bot.config.model import config_hash
from gradgate.bot.doors.action.approvals import (
    Found,
    approval_status,
    for_comment,
    for_label,
    may_write,
    recorded,
)
from gradgate.bot.doors.action.files import output, read_json, write_json
from gradgate.bot.doors.action.publishing import error_statuses, left_open, publish
from gradgate.bot.doors.action.settings import Settings, connect, say
from gradgate.bot.doors.isolated import run_checks
from gradgate.bot.git.fetch import BASE_REF, fetch_pull
from gradgate.bot.github.approval import approver
from gradgate.bot.github.commands import CommentEvent
from gradgate.bot.github.events import LabelEvent, WorkflowRunEvent
from gradgate.bot.github.fork import CodeChecks, code_checks
from gradgate.bot.github.ports import GitHubPort, PullRequest
from gradgate.bot.github.results import CHECK_FILE, PLAN_FILE, merge, plan_record, record_review
from gradgate.bot.github.sticky import ours, shown
from gradgate.bot.pipeline import Planned, Request, plan_request
from gradgate.bot.report import formats
from gradgate.bot.report.load import report_from_json
from gradgate.bot.templates import render_template
from gradgate.checks.errors import GitHubError, GradgateError, UsageError

TrustedEvent = WorkflowRunEvent | CommentEvent | LabelEvent
_NOTHING = "publish=false\nrun=false\n"
_ERROR_ONLY = "publish=true\nrun=false\n"


class _NoPull(Exception):
    def __init__(self, head_sha: str, why: str) -> None:
        super().__init__(why)
        self.head_sha, self.why = head_sha, why


def gate(s: Settings, event: TrustedEvent) -> int:
    port = connect(s)
    try:
        found = _for_run(s, port, event) if isinstance(event, WorkflowRunEvent) else None
    except _NoPull as exc:  # an error on the head, at least: the publish job sets it
        error = {"pr": None, "head_sha": exc.head_sha, "error": exc.why, "gate_run": _run_id(s)}
        write_json(s.results / PLAN_FILE, error)
        output(s, _ERROR_ONLY)
        return 0
    if isinstance(event, CommentEvent):
        found = for_comment(port, event, repo=s.need("GITHUB_REPOSITORY"))
    if isinstance(event, LabelEvent):
        found = for_label(port, event, repo=s.need("GITHUB_REPOSITORY"))
    if found is None:
        output(s, _NOTHING)
        return 0
    pull, head = found.pull, found.head_sha
    same_repo = pull.head_repo == s.need("GITHUB_REPOSITORY")
    request = _request(s, pull, head, untrusted=not same_repo)
    try:
        fetch_pull(
            s.repo_path, number=pull.number, base_ref=pull.base_ref, head_sha=head,
            token=s.env.get("GITHUB_TOKEN"),
        )  # fmt: skip
        planned = plan_request(request, for_checks=False)
    except GradgateError as exc:
        record = plan_record(
            pr=pull.number, head_sha=head, base_sha=pull.base_sha, config_hash=None,
            config_source=None, plan=None, error=str(exc),
        )  # fmt: skip
        write_json(s.results / PLAN_FILE, {**record, "gate_run": _run_id(s)})
        output(s, _ERROR_ONLY)
        return 0
    to_run = [c for c in planned.plan.to_run if c.available]
    static = [c.name for c in to_run if not c.runs_user_code]
    code = [c.name for c in to_run if c.runs_user_code]
    if static:  # in a child without credentials, like every check
        _, data = run_checks(dataclasses.replace(request, only=tuple(static)), environ=s.env)
        if data is not None:
            write_json(s.results / CHECK_FILE.format(name="trusted"), data)
    can_write = may_write(port)
    by = _approver(s, port, found, code=bool(code), same_repo=same_repo, may_write=can_write)
    how = code_checks(
        same_repo=same_repo, author_can_write=can_write(pull.author), approved=bool(by)
    )
    approval = None  # this event approves the head: the publish job records it on the commit
    if by and how is CodeChecks.RUN and isinstance(event, CommentEvent | LabelEvent):
        approval = {"by": by, "label": isinstance(event, LabelEvent)}
    waiting: dict[str, str] = {}
    matrix: list[dict[str, Any]] = []
    if code and how is CodeChecks.UPLOADED:
        _copy_uploaded(s, code)
    elif code and how is CodeChecks.RUN:
        config = planned.policy.config
        matrix = [{"check": name, "runs_on": list(config.runner_for(name))} for name in code]
    elif code:
        words = render_template("action_fork.txt.j2", head_sha=head).strip()
        waiting = dict.fromkeys(code, words)
    write_json(s.results / PLAN_FILE, _record(s, planned, pull.number, waiting, approval))
    say(
        "gate", number=pull.number, head_sha=head, static=" ".join(static), code=" ".join(code),
        how=str(how), approver=by,
    )  # fmt: skip
    matrix_json = json.dumps({"include": matrix}, separators=(",", ":"))
    output(
        s,
        f"publish=true\nrun={'true' if matrix else 'false'}\nmatrix={matrix_json}\n"
        f"pr={pull.number}\nhead={head}\nbase_ref={pull.base_ref}\n",
    )
    return 0


def check(s: Settings) -> int:
    """One code check of a fork's head the gate let run: fetched as objects, run in a child
    without credentials, under bubblewrap (``untrusted_head``)."""
    if not (s.check and s.pr and s.head and s.base_ref):
        raise UsageError("the trusted `check` stage needs --check, --pr, --head and --base-ref")
    try:
        number = formats.positive_int(int(s.pr), "--pr") if s.pr.isdigit() else 0
        head = formats.sha(s.head, "--head")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not number:
        raise UsageError(f"--pr is not a pull request number: {s.pr[:20]!r}")
    fetch_pull(
        s.repo_path, number=number, base_ref=s.base_ref, head_sha=head,
        token=s.env.get("GITHUB_TOKEN"),
    )  # fmt: skip
    request = Request(
        repo_path=s.repo_path, base=BASE_REF, head=head, only=(s.check,), pr_number=number,
        python=s.python, sandbox_default="require", untrusted_head=True,
    )  # fmt: skip
    report, data = run_checks(request, environ=s.env)
    path = s.results / CHECK_FILE.format(name=s.check)
    write_json(path, data if data is not None else {"verdict": "error", "checks": []})
    say("checked", check=s.check, verdict=str(report.verdict), path=path)
    return report.verdict.exit_code


def publish_trusted(s: Settings, event: TrustedEvent) -> int:
    """The gate's record and this run's results -> the PR; nothing read here ran PR code."""
    record = read_json(s.results / PLAN_FILE)
    if not isinstance(record, dict) or record.get("gate_run") != _run_id(s):
        # Not this run's gate's: a fork's upload, passed here by a publishing workflow from
        # before the trusted gate (issue 17). It decides nothing.
        raise UsageError(render_template("action_not_gated.txt.j2").strip())
    if record.get("pr") is None and isinstance(event, WorkflowRunEvent):
        why = str(record.get("error") or "the checks run named no pull request")
        error_statuses(s, event.head_sha, why, s.target(0, str(event.run_id)))
        raise UsageError(why)
    try:
        head = formats.sha(record.get("head_sha"), "head_sha")
        number = formats.positive_int(record.get("pr"), "pr")
        if isinstance(event, WorkflowRunEvent) and head != event.head_sha:
            raise ValueError(f"the plan is for {head}, not for the run's {event.head_sha}")
        if isinstance(event, CommentEvent | LabelEvent) and number != event.number:
            raise ValueError(f"the plan is for #{number}, not for #{event.number}")
    except ValueError as exc:
        raise UsageError(f"the gate's plan record: {exc}") from None
    target = s.target(number, s.env.get("GITHUB_RUN_ID"))
    try:
        checks = [read_json(p) for p in sorted(s.results.glob(CHECK_FILE.format(name="*")))]
        report, review = merge(record, checks, head_sha=head), record_review(record)
    except ValueError as exc:
        error_statuses(s, head, str(exc), target)
        raise UsageError(str(exc)) from exc
    _record_approval(s, record.get("approval"), head)
    pending = left_open(s, head)
    publish(s, report, number=number, head_sha=head, target=target, pending=pending, review=review)
    return 0


def _for_run(s: Settings, port: GitHubPort, event: WorkflowRunEvent) -> Found | None:
    """The PR a finished run of gradgate.yml was for: the number its plan record names (the
    only thing read from it), checked against the branch GitHub says the run was for."""
    path = s.uploaded / PLAN_FILE
    if not path.exists() and event.conclusion != "failure":  # its plan job was skipped
        say("nothing-to-publish", head_sha=event.head_sha, why="no-results")
        return None
    try:
        number = formats.positive_int(read_json(path).get("pr"), "pr")
    except (UsageError, ValueError, AttributeError) as exc:  # no PR to comment on
        raise _NoPull(event.head_sha, f"the checks run's plan record: {exc}") from exc
    pull = port.pull(number)
    if (pull.head_repo, pull.head_ref) != (event.head_repo, event.head_branch):
        values = dict(number=number, repo=event.head_repo, branch=event.head_branch)
        raise UsageError(render_template("action_wrong_pr.txt.j2", **values).strip())
    if pull.head_sha != event.head_sha or pull.state != "open":
        why = dict(head_sha=event.head_sha, head_now=pull.head_sha, why="superseded")
        say("nothing-to-publish", **why)
        return None
    _one_of_several(s, port, pull, event)
    return Found(pull, event.head_sha)


def _one_of_several(
    s: Settings, port: GitHubPort, pull: PullRequest, event: WorkflowRunEvent
) -> None:
    """Several open PRs may have this head from this branch (a fork's branch opened again into
    another base, issue 34); GitHub's event does not say which one a run was for, and the
    fork's upload names one. Each is judged once per head: an upload naming one already judged
    for it while another is not is refused, and the head gets an error (never a pass)."""
    branch = (event.head_repo, event.head_branch)
    same = [
        p.number for p in port.open_pulls(event.head_sha) if (p.head_repo, p.head_ref) == branch
    ]

    def judged(number: int) -> bool:
        said = shown(ours(port.comments(number), bot_login=s.bot_login))
        return said is not None and said.head == event.head_sha

    waiting = [n for n in same if n != pull.number and not judged(n)]
    if waiting and judged(pull.number):
        words = dict(number=pull.number, waiting=waiting, head_sha=event.head_sha)
        raise _NoPull(event.head_sha, render_template("action_other_pr.txt.j2", **words).strip())


def _approver(
    s: Settings,
    port: GitHubPort,
    found: Found,
    *,
    code: bool,
    same_repo: bool,
    may_write: Callable[[str], bool],
) -> str | None:
    """Who approved the head's code to run: the label's sender, the author of an
    `/ok-to-test <sha>` comment naming it, or, for a fork, the approval the publish job
    recorded on the commit (the fork's run re-run, or `/recheck`, after a label)."""
    if found.approver is not None or not code:
        return found.approver
    by = approver(port.comments(found.pull.number), found.head_sha, may_write=may_write)
    if by is not None or same_repo:
        return by
    return recorded(port, found.head_sha, bot_login=s.bot_login, may_write=may_write)


def _record_approval(s: Settings, approval: object, head: str) -> None:
    """The gate's approval of ``head``, recorded on the commit as a status, so that a later gate
    of the same commit knows it; a failure is logged (that gate then waits, never runs)."""
    if approval is None:
        return
    fields = approval if isinstance(approval, dict) else {}
    try:
        by = formats.login(fields.get("by"), "approval.by")
    except ValueError as exc:
        raise UsageError(f"the gate's plan record: {exc}") from None
    try:
        connect(s).set_status(head, approval_status(by, label=fields.get("label") is True))
    except GitHubError as exc:
        say("approval-unrecorded", head_sha=head, error=str(exc))


def _request(s: Settings, pull: PullRequest, head: str, *, untrusted: bool) -> Request:
    return Request(
        repo_path=s.repo_path, base=BASE_REF, head=head, pr_number=pull.number, python=s.python,
        sandbox_default="require", untrusted_head=untrusted,
    )  # fmt: skip


def _record(
    s: Settings,
    planned: Planned,
    number: int,
    waiting: dict[str, str],
    approval: dict[str, Any] | None = None,
) -> dict[str, Any]:
    text = planned.policy.text
    record = plan_record(
        pr=number, head_sha=planned.head_sha, base_sha=planned.base_sha,
        config_hash=config_hash(text) if text else None, config_source=planned.policy.source,
        plan=planned.plan, review=planned.policy.config.report.review, waiting=waiting,
    )  # fmt: skip
    extra = {"approval": approval} if approval else {}
    return {**record, **extra, "gate_run": _run_id(s)}


def _run_id(s: Settings) -> str:
    return s.env.get("GITHUB_RUN_ID") or "none"


def _copy_uploaded(s: Settings, code: list[str]) -> None:
    """A same-repository PR's own results, for the code checks only (the static ones were
    just run here), each kept only if it reads as a report."""
    for i, path in enumerate(sorted(s.uploaded.glob(CHECK_FILE.format(name="*")))):
        try:
            data = read_json(path)
            data["checks"] = [c for c in data.get("checks", []) if c.get("name") in code]
            report_from_json(data)
        except (UsageError, ValueError, AttributeError, TypeError):
            continue
        write_json(s.results / CHECK_FILE.format(name=f"uploaded-{i}"), data)
