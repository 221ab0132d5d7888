"""The optional pull request review of a run (pure): what it says, and which earlier ones to clear.

GitHub takes an inline review comment only on a line of the pull request's diff: a head line
(side RIGHT) or a deleted base line (side LEFT); one comment elsewhere and it refuses the whole
review (422). So a finding is commented inline only where the report's ``diff_lines`` say its
line changed, and every other finding is listed in the review's body:

- a finding about the head (or about no side) goes on its own head line;
- one about the base (``protected``: the statement as it was) goes on the head line of the
  statement where the PR changed it (``head_file``/``head_line``), else on its base line where
  the PR deleted that line.

A suggestion (``details_lang == "suggestion"``: a check's replacement for the finding's head
line) becomes a ```` ```suggestion ```` block, which GitHub applies in place of the commented
line(s): it is only ever put on a single-line comment on exactly that head line.

Earlier reviews are gradgate's when both the login and the marker match, as for the sticky
comment. A review that requested changes (or approved) is dismissed; a comment-only one, which
GitHub cannot dismiss, has its body replaced by a short "cleared" note (without the marker, so
it is not cleared again). Their inline comments are deleted first, in both cases.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradgate.bot.config.model import ReviewMode
from gradgate.bot.github.ports import Event, Review, ReviewComment, ReviewDraft
from gradgate.bot.report.lines import DiffLines, Side
from gradgate.bot.report.render import Report, findings
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates import render_template
from gradgate.checks.base import CheckResult, Finding, Severity

REVIEW_MARKER = "<!-- gradgate:review -->"
MAX_COMMENTS = 50  # inline comments per review, most severe first; the rest go in the body
MAX_LISTED = 30  # findings listed in the body; the sticky comment has them all
BODY_LIMIT = 65_536  # GitHub's limit for a review's body and for each comment's
DISMISSABLE = frozenset({"CHANGES_REQUESTED", "APPROVED"})  # GitHub dismisses only these

Where = tuple[str, int, Side]


def place(finding: Finding, lines: DiffLines | None) -> Where | None:
    """The diff line an inline comment on ``finding`` goes on, or None: the review's body."""
    if lines is None or finding.file is None or finding.line is None:
        return None
    if finding.revision != "base":
        where: Where = (finding.file, finding.line, "RIGHT")
        return where if lines.changed(*where) else None
    file, line = finding.head_file, finding.head_line  # the statement where it is at head
    if file is not None and line is not None and lines.changed(file, line, "RIGHT"):
        return (file, line, "RIGHT")
    if lines.changed(finding.file, finding.line, "LEFT"):
        # GitHub names a renamed file by its new path, on both sides of its diff.
        return (lines.diff_path(finding.file), finding.line, "LEFT")
    return None


def suggests(finding: Finding, where: Where) -> bool:
    """Whether the finding's suggestion applies at ``where``: its own head line, one line."""
    return (
        finding.details_lang == "suggestion"
        and finding.details is not None
        and "\n" not in finding.details
        and finding.revision != "base"
        and where == (finding.file, finding.line, "RIGHT")
    )


def draft(report: Report, mode: ReviewMode, *, inline: bool = True) -> ReviewDraft | None:
    """The review to submit, or None when there is nothing to review: no failure, no warning,
    and no note on a changed line (notes elsewhere, such as a zone touched, are in the comment).

    ``inline=False``: every finding in the body (GitHub refused the inline comments).
    """
    failed = report.verdict is Verdict.FAILURE
    worth = failed
    comments: list[ReviewComment] = []
    listed: list[tuple[CheckResult, Finding]] = []
    for result, finding in findings(report):
        where = place(finding, report.diff_lines)
        worth = worth or where is not None or finding.severity is not Severity.NOTE
        if where is None or not inline or len(comments) >= MAX_COMMENTS:
            listed.append((result, finding))
            continue
        body = render_template(
            "review_comment.md.j2",
            f=finding,
            check=result.check,
            suggestion=suggests(finding, where),
        )
        comments.append(ReviewComment(*where, body=_fit(body)))
    if not worth:
        return None
    event: Event = "REQUEST_CHANGES" if mode == "request-changes" and failed else "COMMENT"
    body = render_template(
        "review_body.md.j2",
        marker=REVIEW_MARKER,
        r=report,
        inline=len(comments),
        listed=listed,
        limit=MAX_LISTED,
    )
    return ReviewDraft(event=event, body=_fit(body), comments=tuple(comments))


def earlier(reviews: Sequence[Review], *, bot_login: str, keep: int | None) -> list[Review]:
    """gradgate's reviews to clear: our login *and* marker, not dismissed, and not ``keep``."""
    return [
        r
        for r in reviews
        if r.author == bot_login
        and r.body.lstrip().startswith(REVIEW_MARKER)
        and r.state != "DISMISSED"
        and r.id != keep
    ]


def dismissal(report: Report, *, replaced: bool) -> str:
    return render_template("review_cleared.txt.j2", r=report, replaced=replaced).strip()


def _fit(text: str) -> str:
    if len(text) <= BODY_LIMIT:
        return text
    cut = render_template("review_cut.md.j2").strip()
    return text[: BODY_LIMIT - len(cut) - 2] + "\n\n" + cut
