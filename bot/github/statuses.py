"""The commit statuses of a run (pure): `pending` while it runs, then the report's.

An overall `gradgate` context is always reported, and one `gradgate/<check>` per check: a check
the plan skipped is `success` with the reason, so a required status never hangs pending. Every
description fits GitHub's 140 characters and ends with the base and config it was computed for.

A run a newer push superseded computed nothing: its pending statuses become `error` (the run
did not finish), with no base or config, never `success`, which would pass what was not
checked, nor `failure`, which would claim a finding. Like every error, it blocks a required
status on that commit only; the newer head gets its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradgate.bot.github.commit import NOT_GATED, Origin, on_commit
from gradgate.bot.github.ports import Status, StatusState
from gradgate.bot.plan.plan import Plan
from gradgate.bot.report.render import STATUS_LIMIT, Report
from gradgate.bot.templates import render_template

_STATES: frozenset[str] = frozenset({"pending", "success", "failure", "error"})


def fit(description: str, stamp: str) -> str:
    """``description`` + ``stamp`` in STATUS_LIMIT characters; the description gives way."""
    room = STATUS_LIMIT - len(stamp)
    if len(description) > room:
        description = description[: room - 1].rstrip() + "…"
    return description + stamp


def suffix(base_sha: str | None, config_hash: str | None) -> str:
    return render_template(
        "github_stamp.txt.j2", base_sha=base_sha, config_hash=config_hash
    ).rstrip("\n")


def _status(
    context: str, state: str, description: str, stamp: str, target_url: str | None
) -> Status:
    if state not in _STATES:
        raise ValueError(f"not a commit status state: {state!r}")
    checked: StatusState = state  # type: ignore[assignment]
    return Status(context, checked, fit(description, stamp), target_url)


def pending_statuses(
    plan: Plan, *, base_sha: str, config_hash: str | None, target_url: str | None
) -> list[Status]:
    stamp = suffix(base_sha, config_hash)
    out = []
    for line in render_template("github_pending.txt.j2", plan=plan).splitlines():
        if line.strip():
            context, state, description = line.split("\t", 2)
            out.append(_status(context, state, description, stamp, target_url))
    return out


def final_statuses(
    report: Report, *, target_url: str | None, origin: Origin | None = None
) -> list[Status]:
    """The report's statuses as published on its head (``commit.on_commit``): GitHub has no
    neutral status, so "not gated here" is `pending`, never `success`."""
    stamp = suffix(report.base_sha, report.config_hash)
    return [
        _status(context, "pending" if state == NOT_GATED else state, description, stamp, target_url)
        for context, (state, description) in on_commit(report, origin).items()
    ]


def superseded_statuses(
    contexts: Sequence[str], *, newer_head: str, target_url: str | None
) -> list[Status]:
    """The statuses a superseded run left pending, concluded: `error`, saying which push."""
    words = render_template("github_superseded.txt.j2", newer_head=newer_head).strip()
    return [_status(context, "error", words, "", target_url) for context in contexts]


def unpublished_statuses(contexts: Sequence[str], *, target_url: str | None) -> list[Status]:
    """When the check runs could not be completed: each context `error`, so nothing on the
    commit passes beside a check run left in progress or saying something else."""
    words = render_template("github_unpublished.txt.j2").strip()
    return [_status(context, "error", words, "", target_url) for context in contexts]
