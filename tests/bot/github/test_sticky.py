"""bot.github.sticky: which comment is ours, and how to bring it up to date (tables)."""

from __future__ import annotations

import pytest
from gradgate.bot.github.ports import Comment
from gradgate.bot.github.sticky import Kind, Stamp, Step, ours, shown, steps
from gradgate.bot.report.render import COMMENT_MARKER

BOT = "github-actions[bot]"


def body(
    text: str, *, verdict: str = "failure", part: int = 1, parts: int = 1, head: str = "h1"
) -> str:
    stamp = Stamp(head=head, base="b", config="c", verdict=verdict, part=part, parts=parts)
    return f"{COMMENT_MARKER}\n{stamp.line()}\n{text}\n"


def comment(id: int, text: str, **kw: object) -> Comment:
    author = str(kw.pop("author", BOT))
    return Comment(
        id=id, body=body(text, **kw), author=author, author_is_bot=author.endswith("[bot]")
    )  # type: ignore[arg-type]


def test_ours_needs_our_login_and_our_marker() -> None:
    mine = comment(3, "report")
    copied = comment(1, "a person pasted our marker", author="mallory")
    other_bot = comment(2, "another bot copied it", author="renovate[bot]")
    plain = Comment(id=4, body="thanks!", author=BOT, author_is_bot=True)

    assert ours([mine, copied, other_bot, plain], bot_login=BOT) == [mine]


def test_the_stamp_survives_a_round_trip() -> None:
    stamp = Stamp(head="a" * 40, base="b" * 40, config="none", verdict="error", part=2, parts=3)

    assert Stamp.read(f"text\n{stamp.line()}\nmore") == stamp
    assert Stamp.read("no stamp here") is None


C = Kind.CREATE
E = Kind.EDIT
D = Kind.DELETE


@pytest.mark.parametrize(
    ("existing", "new", "verdict", "expected"),
    [
        pytest.param([], ["A"], "failure", [(C, None, "A")], id="first-report-creates"),
        pytest.param([(5, "A", "failure")], ["A"], "failure", [], id="unchanged-is-left-alone"),
        pytest.param(
            [(5, "A", "failure")], ["B"], "failure", [(E, 5, "B")], id="changed-is-edited"
        ),
        pytest.param(
            [(5, "A", "failure")], ["B"], "success", [(E, 5, "B")], id="fail-to-pass-edits"
        ),
        pytest.param(
            [(5, "A", "success")],
            ["B"],
            "failure",
            [(C, None, "B"), (D, 5, None)],
            id="pass-to-fail-recreates",
        ),
        pytest.param(
            [(5, "A", "success")],
            ["B"],
            "error",
            [(C, None, "B"), (D, 5, None)],
            id="pass-to-error-recreates",
        ),
        pytest.param(
            [(5, "A", "success")], ["B"], "success", [(E, 5, "B")], id="pass-to-pass-edits"
        ),
        pytest.param(
            [(5, "A", "failure"), (6, "A", "failure")],
            ["A"],
            "failure",
            [(D, 6, None)],
            id="a-duplicate-is-deleted",
        ),
    ],
)
def test_one_part(
    existing: list[tuple[int, str, str]],
    new: list[str],
    verdict: str,
    expected: list[tuple[Kind, int | None, str | None]],
) -> None:
    comments = [comment(i, text, verdict=v) for i, text, v in existing]
    bodies = [body(text, verdict=verdict) for text in new]

    got = steps(comments, bodies, verdict=verdict)

    assert got == [Step(k, i, body(t, verdict=verdict) if t else None) for k, i, t in expected]


def test_growing_to_three_parts_keeps_part_one_and_adds_the_rest_in_order() -> None:
    existing = [comment(5, "old", parts=1)]
    new = [body(f"p{k}", part=k, parts=3) for k in (1, 2, 3)]

    got = steps(existing, new, verdict="failure")

    assert got == [Step(E, 5, new[0]), Step(C, None, new[1]), Step(C, None, new[2])]


def test_shrinking_to_one_part_deletes_the_others() -> None:
    existing = [comment(5 + k, f"p{k}", part=k, parts=3) for k in (1, 2, 3)]
    new = [body("whole")]

    assert steps(existing, new, verdict="failure") == [Step(E, 6, new[0]), Step(D, 7), Step(D, 8)]


def test_a_part_older_than_the_one_before_it_is_replaced_to_keep_the_order() -> None:
    # Part 2 was deleted by hand and re-created after part 3: the parts would read 1, 3, 2.
    existing = [
        comment(5, "p1", part=1, parts=3),
        comment(6, "p3", part=3, parts=3),
        comment(7, "p2", part=2, parts=3),
    ]
    new = [body(f"p{k}", part=k, parts=3) for k in (1, 2, 3)]

    got = steps(existing, new, verdict="failure")

    assert got == [Step(C, None, new[2]), Step(D, 6)]  # parts 1 and 2 are kept as they are


def test_shown_is_the_oldest_part_one() -> None:
    existing = [
        comment(5, "p2", part=2, parts=2, head="x"),
        comment(6, "p1", part=1, parts=2, head="y"),
    ]

    stamp = shown(existing)

    assert stamp is not None and stamp.head == "y"


def test_a_part_that_differs_only_in_how_long_checks_took_is_left_alone() -> None:
    # A re-run of the same head: the same findings, other timings (a busy machine, a warm cache).
    def table(protected: str, gradient: str) -> str:
        return (
            "| check | result | why | time |\n|---|---|---|---|\n"
            f"| Protected lines (`protected`) | ✅ passed | always | {protected} |\n"
            f"| Gradient flow (`gradient`) | ❌ failed: 1 finding | `m.py` in zone | {gradient} |"
        )

    existing = [comment(5, table("<0.1 s", "9.8 s"))]

    assert steps(existing, [body(table("0.1 s", "1 min 2 s"))], verdict="failure") == []
    changed = body(table("0.1 s", "1 min 2 s").replace("1 finding", "2 findings"))
    assert steps(existing, [changed], verdict="failure") == [Step(E, 5, changed)]
