"""The optional pull request review, through the port: this run's submitted, earlier ones cleared.

New before old, as for the sticky comment: a failure halfway leaves a review, never none. A
POST that GitHub carried out but answered with a 5xx is retried and leaves a second copy of the
new review; clearing "every earlier one but the new one" removes it as well. When GitHub
refuses the inline comments (422: a line it does not count as part of the diff, if its diff and
git's ever disagree), the review is submitted again with every finding in its body.
"""

from __future__ import annotations

from gradgate.bot.config.model import ReviewMode
from gradgate.bot.github.ports import GitHubPort
from gradgate.bot.github.review import DISMISSABLE, dismissal, draft, earlier
from gradgate.bot.report.render import Report
from gradgate.checks.errors import GitHubError

UNPROCESSABLE = 422


def submit_review(
    port: GitHubPort, report: Report, *, number: int, bot_login: str, mode: ReviewMode
) -> int | None:
    """The new review's id (None: nothing to review). ``mode="off"`` calls nothing at all."""
    if mode == "off":
        return None
    if report.head_sha is None:
        raise ValueError("a review is of the head its report was computed for")
    made = None
    todo = draft(report, mode)
    if todo is not None:
        try:
            made = port.create_review(number, report.head_sha, todo)
        except GitHubError as exc:
            plain = draft(report, mode, inline=False)
            if exc.status != UNPROCESSABLE or not todo.comments or plain is None:
                raise
            made = port.create_review(number, report.head_sha, plain)
    note = dismissal(report, replaced=made is not None)
    for old in earlier(port.reviews(number), bot_login=bot_login, keep=made):
        for comment_id in port.review_comment_ids(number, old.id):
            port.delete_review_comment(number, comment_id)
        if old.state in DISMISSABLE:
            port.dismiss_review(number, old.id, note)
        else:  # GitHub cannot dismiss a comment-only review: its body says it is cleared
            port.edit_review(number, old.id, note)
    return made
