"""bot.github.review: where each finding of a review goes, and what the review says (pure)."""

from __future__ import annotations

import dataclasses

import pytest
from gradgate.bot.config.model import ReviewMode
from gradgate.bot.github.ports import Review
from gradgate.bot.github.review import (
    MAX_COMMENTS,
    REVIEW_MARKER,
    draft,
    earlier,
    place,
    suggests,
)
from gradgate.bot.report.lines import DiffLines
from gradgate.checks.base import Finding, Severity
from gradgate.checks.diff import LineSpan

from tests.bot.github.reports import finding, report

LINES = DiffLines(
    head={"models/m1.py": (LineSpan(1, 1),), "docs.md": (LineSpan(9, 10),), "new.py": ()},
    base={"models/m1.py": (LineSpan(4, 5),), "old.py": (LineSpan(2, 2),)},
    renamed={"old.py": "new.py"},
)


def base_side(
    line: int, *, head: tuple[str, int] | None = None, file: str = "models/m1.py"
) -> Finding:
    """A `protected` blocking finding: base line numbers, maybe the statement's head line."""
    return Finding(
        kind="protected-line-changed",
        severity=Severity.BLOCKING,
        message="protected",
        file=file,
        line=line,
        revision="base",
        head_file=head[0] if head else None,
        head_line=head[1] if head else None,
    )


@pytest.mark.parametrize(
    ("found", "where"),
    [
        (finding(1), ("models/m1.py", 1, "RIGHT")),  # a head line the PR changed
        (dataclasses.replace(finding(1), line=2), None),  # a head line it did not change
        (dataclasses.replace(finding(1), revision=None), ("models/m1.py", 1, "RIGHT")),
        (dataclasses.replace(finding(1), line=None), None),  # no line: the body
        (base_side(7, head=("models/m1.py", 1)), ("models/m1.py", 1, "RIGHT")),  # edited at head
        (base_side(4, head=("models/m1.py", 3)), ("models/m1.py", 4, "LEFT")),  # head line same
        (base_side(4), ("models/m1.py", 4, "LEFT")),  # a deleted base line
        (base_side(6), None),  # a base line the PR kept
        (base_side(1), None),  # base line 1 is not head line 1
        (base_side(2, file="old.py"), ("new.py", 2, "LEFT")),  # renamed: named by its new path
    ],
)
def test_a_finding_goes_on_a_changed_line_of_its_side_or_in_the_body(
    found: Finding, where: tuple[str, int, str] | None
) -> None:
    assert place(found, LINES) == where


def test_without_diff_lines_every_finding_goes_in_the_body() -> None:
    assert place(finding(1), None) is None


def suggestion(line: int, text: str = "batch_size: 64") -> Finding:
    return Finding(
        kind="doc-value-mismatch",
        severity=Severity.BLOCKING,
        message="the docs say 32",
        file="docs.md",
        line=line,
        details=text,
        revision="head",
        details_lang="suggestion",
    )


def test_a_suggestion_is_a_suggestion_block_on_exactly_its_head_line() -> None:
    review = draft(dataclasses.replace(report(suggestion(9)), diff_lines=LINES), "comment")

    assert review is not None
    (comment,) = review.comments
    assert (comment.path, comment.line, comment.side) == ("docs.md", 9, "RIGHT")
    assert "```suggestion\nbatch_size: 64\n```" in comment.body


@pytest.mark.parametrize(
    ("found", "where"),
    [
        (suggestion(9), ("docs.md", 10, "RIGHT")),  # another line: it would replace that one
        (suggestion(9), ("docs.md", 9, "LEFT")),
        (dataclasses.replace(suggestion(9), details="two\nlines"), ("docs.md", 9, "RIGHT")),
        (dataclasses.replace(suggestion(9), revision="base"), ("docs.md", 9, "RIGHT")),
    ],
)
def test_a_suggestion_is_offered_only_where_it_replaces_exactly_its_line(
    found: Finding, where: tuple[str, int, str]
) -> None:
    assert suggests(found, where) is False  # type: ignore[arg-type]
    assert suggests(suggestion(9), ("docs.md", 9, "RIGHT")) is True


def test_a_suggestion_with_backticks_gets_a_longer_fence() -> None:
    review = draft(
        dataclasses.replace(report(suggestion(10, "use ```x```")), diff_lines=LINES), "comment"
    )

    assert review is not None
    assert "````suggestion\nuse ```x```\n````" in review.comments[0].body


def test_a_suggestion_off_the_diff_is_not_offered_for_a_line_it_does_not_replace() -> None:
    review = draft(dataclasses.replace(report(suggestion(3)), diff_lines=LINES), "comment")

    assert review is not None and review.comments == ()
    assert "suggestion" not in review.body and "`docs.md:3`" in review.body


def test_a_diff_is_folded_under_its_comment_never_a_suggestion() -> None:
    review = draft(dataclasses.replace(report(finding(1)), diff_lines=LINES), "comment")

    assert review is not None
    body = review.comments[0].body
    assert "```diff\n" in body and "suggestion" not in body
    assert body.startswith("**blocking** · `protected` · ")


def test_the_body_lists_what_is_not_on_a_changed_line() -> None:
    off_diff = dataclasses.replace(finding(2), message="far away")
    review = draft(dataclasses.replace(report(finding(1), off_diff), diff_lines=LINES), "comment")

    assert review is not None
    assert review.body.startswith(REVIEW_MARKER)
    assert [c.line for c in review.comments] == [1]
    assert "1 finding is on lines this pull request changed" in review.body
    assert "Not on a changed line:" in review.body
    assert "far away" in review.body and "(finding 1)" not in review.body


@pytest.mark.parametrize(
    ("mode", "blocking", "event"),
    [
        ("comment", True, "COMMENT"),
        ("request-changes", True, "REQUEST_CHANGES"),
        ("request-changes", False, "COMMENT"),  # only a failure requests changes
    ],
)
def test_the_event_follows_the_mode_and_the_verdict(
    mode: ReviewMode, blocking: bool, event: str
) -> None:
    severity = Severity.BLOCKING if blocking else Severity.WARNING
    review = draft(report(finding(1, severity=severity)), mode)

    assert review is not None and review.event == event


def test_no_findings_and_no_failure_is_no_review() -> None:
    assert draft(report(), "request-changes") is None


def test_notes_off_the_diff_alone_are_no_review_but_a_note_on_a_changed_line_is() -> None:
    off_diff = dataclasses.replace(finding(3, severity=Severity.NOTE), message="zone touched")
    on_diff = finding(1, severity=Severity.NOTE)

    assert draft(dataclasses.replace(report(off_diff), diff_lines=LINES), "comment") is None
    review = draft(dataclasses.replace(report(off_diff, on_diff), diff_lines=LINES), "comment")
    assert review is not None and len(review.comments) == 1 and "zone touched" in review.body
    plain = draft(
        dataclasses.replace(report(off_diff, on_diff), diff_lines=LINES), "comment", inline=False
    )
    assert plain is not None and plain.comments == ()


def test_inline_comments_are_capped_most_severe_first_and_the_rest_listed() -> None:
    notes = [finding(1, severity=Severity.NOTE)] * 5
    blocking = [finding(1)] * MAX_COMMENTS
    review = draft(dataclasses.replace(report(*notes, *blocking), diff_lines=LINES), "comment")

    assert review is not None
    assert len(review.comments) == MAX_COMMENTS
    assert all(c.body.startswith("**blocking**") for c in review.comments)
    assert review.body.count("- **note**") == 5


def test_without_inline_comments_every_finding_is_in_the_body() -> None:
    review = draft(
        dataclasses.replace(report(finding(1)), diff_lines=LINES), "comment", inline=False
    )

    assert review is not None and review.comments == ()
    assert "(finding 1)" in review.body


def test_earlier_reviews_are_ours_by_login_and_marker_and_not_yet_cleared() -> None:
    body = f"{REVIEW_MARKER}\nfindings"
    reviews = [
        Review(1, "github-actions[bot]", "COMMENTED", body),
        Review(2, "mallory", "COMMENTED", body),  # copied the marker
        Review(3, "github-actions[bot]", "COMMENTED", "a human-ish review"),
        Review(4, "github-actions[bot]", "DISMISSED", body),
        Review(5, "github-actions[bot]", "CHANGES_REQUESTED", body),
        Review(6, "github-actions[bot]", "COMMENTED", body),  # the new one
    ]

    found = earlier(reviews, bot_login="github-actions[bot]", keep=6)

    assert [r.id for r in found] == [1, 5]


def test_a_comment_too_long_for_github_is_cut_with_a_note() -> None:
    huge = dataclasses.replace(finding(1), message="x" * 70_000)

    review = draft(dataclasses.replace(report(huge), diff_lines=LINES), "comment")

    assert review is not None
    body = review.comments[0].body
    assert len(body) <= 65_536 and body.endswith("has all of it.*")


def test_messages_and_file_names_from_the_pr_render_as_text_never_as_markup() -> None:
    """A PR chooses file names and statement text: in a review they cannot ping people, open
    HTML or break out of their code span."""
    hostile = dataclasses.replace(
        finding(1),
        file="models/a`b.py",
        line=None,
        message="ping @org/everyone <img src=x onerror=alert(1)> [x](http://evil)",
    )
    on_line = dataclasses.replace(finding(1), message="cc @someone <b>bold</b>")
    review = draft(dataclasses.replace(report(hostile, on_line), diff_lines=LINES), "comment")
    assert review is not None
    for text in (review.body, review.comments[0].body):
        assert "<img" not in text and "<b>" not in text
        assert "@org/everyone" not in text and "@someone" not in text.replace("`", "")
    assert "``models/a`b.py``" in review.body  # one code span, whatever backticks it holds
