"""bot.github.split: a report over GitHub's 65,536 characters -> parts that each render whole."""

from __future__ import annotations

import re

import pytest
from gradgate.bot.github.publish import report_parts
from gradgate.bot.github.split import COMMENT_LIMIT, split_body
from gradgate.bot.github.sticky import Stamp
from gradgate.bot.report.render import COMMENT_MARKER, render

from tests.bot.github.reports import finding, report

_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")


def _header(k: int, n: int) -> str:
    return f"<!-- part {k}/{n} -->\n"


def _footer(k: int, n: int) -> str:
    return "" if k == n else f"(continued in part {k + 1})\n"


def _balanced(part: str) -> None:
    """Each part closes what it opens: an even number of fence lines, as many </details> as
    <details>, and never a </details> before its <details>."""
    fenced, depth = False, 0
    for line in part.splitlines():
        if _FENCE_LINE.match(line):
            fenced = not fenced
        elif not fenced:  # `<details>` inside a diff is text, not a fold
            for tag in re.findall(r"</?details", line):
                depth += -1 if tag.startswith("</") else 1
                assert depth >= 0
    assert not fenced and depth == 0


def _in_order(original: str, parts: list[str]) -> None:
    """Every line of the original is in the parts, in order, none lost."""
    lines = iter(line for part in parts for line in part.splitlines())
    for wanted in original.splitlines():
        assert any(line == wanted for line in lines), f"lost or out of order: {wanted!r}"


def test_a_body_that_fits_is_one_framed_part() -> None:
    assert split_body("hello\n", header=_header, footer=_footer) == ["<!-- part 1/1 -->\nhello\n"]


def test_a_200_kb_report_splits_into_parts_that_fit_and_close_every_fence_and_fold() -> None:
    big = report(*(finding(i, details_lines=40) for i in range(1, 72)))
    body = render(big, "markdown", limit=None)  # unbounded: what a split is for
    assert len(body) > 200_000

    parts = split_body(body, header=_header, footer=_footer)

    assert len(parts) == 4
    assert all(len(p) <= COMMENT_LIMIT for p in parts)
    for part in parts:
        _balanced(part)
    _in_order(body, parts)
    first = parts[0]
    assert "gradgate failed: this change introduces a regression" in first
    assert "| check | result | why | time |" in first
    assert "(finding 1)" in first and "(finding 2)" in first  # the first failures come first
    assert [p.splitlines()[0] for p in parts] == [f"<!-- part {k}/4 -->" for k in range(1, 5)]


def test_one_fold_larger_than_a_part_is_closed_and_reopened_across_parts() -> None:
    body = render(report(finding(1, details_lines=3000)), "markdown", limit=None)
    assert len(body) > 2 * COMMENT_LIMIT

    parts = split_body(body, header=_header, footer=_footer)

    assert len(parts) >= 3
    for part in parts:
        assert len(part) <= COMMENT_LIMIT
        _balanced(part)
    _in_order(body, parts)
    # The continuation starts inside the same fold and the same diff fence, as a reader expects.
    second = parts[1].splitlines()
    assert second[1].strip() == "<details><summary>details</summary>"
    assert second[3].strip().startswith("```") and second[3].strip().endswith("diff")


def test_cuts_prefer_block_boundaries() -> None:
    paragraphs = [f"paragraph {i} " + "word " * 400 for i in range(40)]
    body = "\n\n".join(paragraphs) + "\n"

    parts = split_body(body, header=_header, footer=_footer, limit=20_000)

    for part in parts[1:]:
        assert part.splitlines()[1].startswith("paragraph ")  # not in the middle of one


def test_a_single_line_longer_than_a_part_is_still_split() -> None:
    body = "x" * 150_000 + "\n"

    parts = split_body(body, header=_header, footer=_footer)

    assert all(len(p) <= COMMENT_LIMIT for p in parts)
    assert "".join(p.splitlines()[1] for p in parts) == "x" * 150_000


@pytest.mark.parametrize("findings", [1, 59])
def test_every_part_of_a_published_report_carries_the_marker_and_its_stamp(findings: int) -> None:
    parts = report_parts(report(*(finding(i, details_lines=40) for i in range(1, findings + 1))))

    for k, part in enumerate(parts, start=1):
        assert part.startswith(COMMENT_MARKER + "\n")
        stamp = Stamp.read(part)
        assert stamp is not None and (stamp.part, stamp.parts) == (k, len(parts))
        assert stamp.verdict == "failure" and stamp.config == "abc123def456"
    assert (len(parts) > 1) is (findings > 1)
    if len(parts) > 1:
        assert f"part 2 of {len(parts)}, continued" in parts[1]
        assert f"goes on in the next comment (part 2 of {len(parts)})" in parts[0]


def test_emoji_count_twice_so_a_part_fits_however_github_counts() -> None:
    body = "✅ 🚧 ⏩\n" * 12_000  # 96,000 code points, more UTF-16 units

    parts = split_body(body, header=_header, footer=_footer)

    assert all(len(p.encode("utf-16-le")) // 2 <= COMMENT_LIMIT for p in parts)
    _in_order(body, parts)
