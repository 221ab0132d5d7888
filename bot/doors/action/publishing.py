"""A report -> GitHub: the sticky comment and the final statuses, and the job summary."""

from __future__ import annotations

import dataclasses

from gradgate.bot.config.model import ReviewMode
from gradgate.bot.doors.action.settings import Settings, connect, say
from gradgate.bot.github import rivals
from gradgate.bot.github.checkruns import replaced_check_runs
from gradgate.bot.github.commit import severity
from gradgate.bot.github.outcome import Pending, post_final
from gradgate.bot.github.ports import GitHubPort
from gradgate.bot.github.publish import Target, publish_report
from gradgate.bot.github.rivals import Rival
from gradgate.bot.pipeline import Request, error_report
from gradgate.bot.report.render import Report, render
from gradgate.bot.templates import render_template
from gradgate.checks.errors import GitHubError

SUMMARY_LIMIT = 1_000_000  # GitHub caps a step summary at 1 MiB


def publish(
    s: Settings,
    report: Report,
    *,
    number: int,
    head_sha: str,
    target: Target,
    pending: Pending | None = None,
    review: ReviewMode = "off",
) -> None:
    report = dataclasses.replace(
        report,
        head_sha=report.head_sha or head_sha,  # an error before any plan names no head itself
        rerun="pr",
        repo_url=f"{s.server}/{s.need('GITHUB_REPOSITORY')}",
        docs_url=s.docs_url,
    )
    summary(s, report)
    port = connect(s)
    found = _rivals(port, head_sha, number=number, target=target)
    waiting = _waiting(port, head_sha, number=number, found=found)
    try:
        published = publish_report(
            port, report, target, pending=pending, review=review, also_open=len(found),
            waiting=waiting,
        )  # fmt: skip
    except GitHubError as exc:
        if exc.status != 403:
            raise
        hint = render_template("action_read_only.txt.j2").strip()
        raise GitHubError(f"{exc}; {hint}", status=exc.status) from exc
    say(
        "published", verdict=str(report.verdict), head_sha=report.head_sha, number=number,
        current=published.current, head_now=published.head_now,
    )  # fmt: skip
    shown = published.on_commit.report if published.on_commit else report
    weigh(port, head_sha, found, below=severity(shown), target=target, counted=1 + len(waiting))


def weigh_again(s: Settings, head_sha: str, *, number: int, target: Target) -> None:
    """PR ``number`` stops counting on ``head_sha`` (closed, or pushed over): the most severe
    result of the open PRs left with it as head is posted there again; none left, it stays."""
    port = connect(s)
    found = _rivals(port, head_sha, number=number, target=target)
    weigh(port, head_sha, found, below=-1, target=target, counted=0)


def weigh(
    port: GitHubPort,
    head_sha: str,
    found: list[Rival],
    *,
    below: int,
    target: Target,
    counted: int = 1,
) -> None:
    """One verdict per commit (issue 34): the most severe of the other open PRs' results on
    ``head_sha``, posted again as the newest when it is more severe than ``below``.
    ``counted``: the open PRs with this head beside ``found`` (the one publishing)."""
    top = max(found, key=rivals.severity, default=None)
    if top is not None and rivals.severity(top) > below:
        weighed = len(found) + counted
        rivals.repost(port, head_sha, top, weighed=weighed, details_url=target.target_url)
        say("weighed", head_sha=head_sha, shown=top.number, verdict=top.verdict, open=weighed)


def _rivals(port: GitHubPort, head_sha: str, *, number: int, target: Target) -> list[Rival]:
    """The other open PRs with this head that published a result; a failure to list them is
    logged and weighs nothing (each PR's own publish still weighs the others)."""
    try:
        return rivals.rivals(port, head_sha, number=number, bot_login=target.bot_login)
    except GitHubError as exc:
        say("rivals-unlisted", head_sha=head_sha, error=str(exc))
        return []


def _waiting(
    port: GitHubPort, head_sha: str, *, number: int, found: list[Rival]
) -> list[tuple[int, str]]:
    """The other open PRs with this head and no result yet; a failure to list them is logged
    and holds none back, as for ``_rivals`` (each PR's own publish weighs the others)."""
    try:
        return rivals.waiting(port, head_sha, number=number, found=found)
    except GitHubError as exc:
        say("waiting-unlisted", head_sha=head_sha, error=str(exc))
        return []


def left_open(s: Settings, head_sha: str) -> Pending | None:
    """gradgate's own check runs on ``head_sha`` still in progress (a check that waited for
    approval, a killed job's, a create whose answer was lost): the final ones complete them
    instead of adding new ones beside them, and an older duplicate of a name is concluded as
    replaced, so every check suite completes (issue 18). None: none open, or none listed."""
    port = connect(s)
    try:
        listed = sorted(port.check_runs(head_sha), key=lambda r: r.id)
        open_runs = [r for r in listed if r.status != "completed" and _ours(r.name)]
    except GitHubError as exc:
        say("pending-failed", error=str(exc))
        return None
    kept: dict[str, int] = {}
    extra = []
    for run in reversed(open_runs):  # GitHub shows a name's newest run: that one is completed
        if run.name in kept:
            extra.append(run)
        else:
            kept[run.name] = run.id
    for run, replaced in zip(extra, replaced_check_runs([r.name for r in extra]), strict=True):
        port.update_check_run(run.id, replaced)
    return Pending(kept, running=tuple(kept)) if kept else None


def _ours(name: str) -> bool:
    return name == "gradgate" or name.startswith("gradgate/")


def error_statuses(s: Settings, head_sha: str, message: str, target: Target) -> None:
    """The outcome only, when there is no pull request to comment on: an error, never a pass."""
    report = error_report(Request(repo_path=s.repo_path, base="", head=head_sha), message)
    report = dataclasses.replace(report, head_sha=head_sha)
    post_final(connect(s), report, details_url=target.target_url)


def summary(s: Settings, report: Report) -> None:
    path = s.env.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(render(report, "markdown")[:SUMMARY_LIMIT])
