"""Publish a run to GitHub through the port: pending check runs or statuses (``outcome``), then
the report comment and the final ones, never stale; then the optional review (``reviewer``).

Before publishing, the PR's head is read again. Results for a head that is no longer the PR's
are not published as current: the comment says they were superseded (unless a newer report is
already shown) and the outcome (check runs or statuses) goes on the old commit only, where GitHub
no longer shows it on the PR. If updating the comment fails, the final outcome is still posted
before the error is raised. A run superseded before its report concludes only what its pending
phase left running on its own head (``publish_superseded``). The comment is the PR's own report;
what goes on the commit is the worst result of the open PRs with that head (``commit``,
``post_commit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from gradgate.bot.config.model import ReviewMode
from gradgate.bot.github.commit import Gate, Origin, unjudged, worst
from gradgate.bot.github.outcome import Pending, post_final, post_pending, post_superseded
from gradgate.bot.github.ports import GitHubPort
from gradgate.bot.github.reviewer import submit_review
from gradgate.bot.github.split import COMMENT_LIMIT, split_body
from gradgate.bot.github.sticky import Kind, Stamp, Step, ours, shown, steps
from gradgate.bot.plan.plan import Plan
from gradgate.bot.report import formats
from gradgate.bot.report.render import COMMENT_MARKER, Report, render
from gradgate.bot.templates import render_template
from gradgate.checks.errors import GitHubError

_Frame = Callable[[int, int], str]


@dataclass(frozen=True, slots=True)
class Target:
    number: int  # the pull request
    bot_login: str  # whose comments are gradgate's: github-actions[bot], or an App's slug[bot]
    target_url: str | None = None  # the statuses' and check runs' "Details" link: the run


@dataclass(frozen=True, slots=True)
class Published:
    current: bool  # False: the PR's head moved on; the results were marked superseded
    head_now: str
    steps: tuple[Step, ...]
    left: Pending = field(default_factory=Pending)  # what post_final left in progress
    base_ref: str | None = None  # the PR's base branch as GitHub names it now
    on_commit: Gate | None = None  # whose result the commit shows (``commit.worst``)


def publish_pending(
    port: GitHubPort,
    plan: Plan,
    *,
    head_sha: str,
    base_sha: str,
    config_hash: str | None,
    target: Target,
) -> Pending:
    return post_pending(
        port,
        plan,
        head_sha=head_sha,
        base_sha=base_sha,
        config_hash=config_hash,
        details_url=target.target_url,
    )


def publish_superseded(
    port: GitHubPort, pending: Pending, *, head_sha: str, newer_head: str, target: Target
) -> None:
    """What ``publish_pending`` left running on ``head_sha``, concluded as superseded by
    ``newer_head``; nothing else: the newer head's run reports on it."""
    post_superseded(
        port, pending, head_sha=head_sha, newer_head=newer_head, details_url=target.target_url
    )


def publish_report(
    port: GitHubPort,
    report: Report,
    target: Target,
    *,
    pending: Pending | None = None,
    limit: int = COMMENT_LIMIT,
    review: ReviewMode = "off",
    others: Sequence[Gate] = (),
    also_open: int = 0,
    waiting: Sequence[tuple[int, str]] = (),
) -> Published:
    """``review``: `.gradgate.yml`'s ``report.review``; a review is submitted last, and only
    for a head that is still the PR's. ``others``: the other open PRs with this head and their
    own results for it; ``waiting``: those (number, base branch) with none yet, pending until
    they have one; the commit shows the most severe of all (``commit``), the comment this
    PR's own."""
    if report.head_sha is None:
        raise ValueError("a report published to GitHub names the head it was computed for")
    published = Published(current=True, head_now=report.head_sha, steps=())
    failed: GitHubError | None = None
    try:
        published = _comment(port, report, target, limit=limit)
    except GitHubError as exc:  # still post the final outcome: a required check must not hang
        failed = exc
    held = [unjudged(number, base_ref, report) for number, base_ref in waiting]
    shown = worst([Gate(target.number, published.base_ref or "", report), *others])
    weighed = len(others) + len(held) + also_open + 1
    left = post_commit(port, shown, weighed, details_url=target.target_url, pending=pending)
    waited = worst([shown, *held])
    if not waited.judged:
        # The judged result stays on the commit (a door without a store reads it back from
        # there), and the PR not judged yet holds it pending, as the newest.
        hold = post_commit(port, waited, weighed, details_url=target.target_url)
        ids = None if left.check_runs is None else {**left.check_runs, **(hold.check_runs or {})}
        left, shown = Pending(ids, running=(*left.running, *hold.running)), waited
    if failed is not None:
        raise failed
    published = replace(published, left=left, on_commit=shown)
    if published.current:
        submit_review(port, report, number=target.number, bot_login=target.bot_login, mode=review)
    return published


def post_commit(
    port: GitHubPort,
    shown: Gate,
    weighed: int,
    *,
    details_url: str | None,
    pending: Pending | None = None,
) -> Pending:
    """``shown``'s result on its head, naming it when ``weighed`` open PRs share the head. Then
    GitHub shows the newest check run of each name, and another PR's may be newer than the
    ones this run started: with others, the result is posted once more as new check runs."""
    origin = Origin(shown.number, shown.base_ref or None, weighed, judged=shown.judged)
    report = shown.report
    left = post_final(port, report, details_url=details_url, pending=pending, origin=origin)
    if weighed > 1 and left.check_runs is not None:
        left = post_final(port, report, details_url=details_url, origin=origin)
    return left


def _comment(port: GitHubPort, report: Report, target: Target, *, limit: int) -> Published:
    """The sticky comment brought up to date, for the head as it is now."""
    pull = port.pull(target.number)  # never stale: the head as it is now
    current = pull.head_sha == report.head_sha
    existing = ours(port.comments(target.number), bot_login=target.bot_login)
    parts: list[str] = []
    verdict = str(report.verdict)
    if current:
        parts = report_parts(report, limit=limit)
    else:
        now = shown(existing)
        if now is None or now.head != pull.head_sha:  # else a newer run already reported
            verdict = now.verdict if now is not None else "none"  # the next run still notifies
            parts = superseded_parts(
                report, current_head=pull.head_sha, verdict=verdict, limit=limit
            )
    todo = steps(existing, parts, verdict=verdict) if parts else []
    _apply(port, target.number, todo)
    if any(step.kind is Kind.CREATE for step in todo):
        # A POST that GitHub carried out but answered with a 5xx is retried and leaves a
        # duplicate: look again, and remove it now rather than on the next run.
        again = ours(port.comments(target.number), bot_login=target.bot_login)
        _apply(port, target.number, steps(again, parts, verdict=verdict))
    return Published(
        current=current, head_now=pull.head_sha, steps=tuple(todo), base_ref=pull.base_ref
    )


# A report is split into at most about this many comments: past it, render() shows the first
# findings in full and counts the rest.
MAX_PARTS = 10


def report_parts(report: Report, *, limit: int = COMMENT_LIMIT) -> list[str]:
    body = render(report, "markdown", limit=MAX_PARTS * limit).removeprefix(COMMENT_MARKER + "\n")
    return _framed(body, report, verdict=str(report.verdict), limit=limit)


def superseded_parts(
    report: Report, *, current_head: str, verdict: str, limit: int = COMMENT_LIMIT
) -> list[str]:
    inner = render(report, "markdown", limit=MAX_PARTS * limit).removeprefix(COMMENT_MARKER + "\n")
    body = render_template(
        "comment_superseded.md.j2", r=report, current_head=current_head, report=inner
    )
    return _framed(body, report, verdict=verdict, limit=limit)


def _framed(body: str, report: Report, *, verdict: str, limit: int) -> list[str]:
    assert report.head_sha is not None
    _stampable(report, verdict)

    def stamp(part: int, parts: int) -> str:
        return Stamp(
            head=report.head_sha or "none",
            base=report.base_sha or "none",
            config=report.config_hash or "none",
            verdict=verdict,
            part=part,
            parts=parts,
        ).line()

    def frame(edge: str) -> _Frame:
        def text(part: int, parts: int) -> str:
            return render_template(
                "comment_part.md.j2",
                edge=edge,
                marker=COMMENT_MARKER,
                stamp=stamp(part, parts),
                part=part,
                parts=parts,
            )

        return text

    return split_body(body, header=frame("header"), footer=frame("footer"), limit=limit)


_VERDICTS = frozenset({"success", "failure", "error", "pending", "none"})


def _stampable(report: Report, verdict: str) -> None:
    """Only gradgate writes the hidden stamp, and only values of the stamp's formats (issue 17):
    a field that could end the HTML comment or fake another stamp is refused, not written."""
    formats.sha(report.head_sha, "head_sha")
    if report.base_sha is not None:
        formats.sha(report.base_sha, "base_sha")
    if report.config_hash is not None:
        formats.config_hash(report.config_hash, "config_hash")
    if verdict not in _VERDICTS:
        raise ValueError(f"not a verdict: {verdict[:40]!r}")


def _apply(port: GitHubPort, number: int, todo: Sequence[Step]) -> None:
    for step in todo:
        if step.kind is Kind.CREATE:
            assert step.body is not None
            port.create_comment(number, step.body)
        elif step.kind is Kind.EDIT:
            assert step.comment_id is not None and step.body is not None
            port.edit_comment(number, step.comment_id, step.body)
        else:
            assert step.comment_id is not None
            port.delete_comment(number, step.comment_id)
