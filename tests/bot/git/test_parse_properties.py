"""Properties of the diff parser (bot/git/parse.py), on diffs written the way git writes them:
what git wrote comes back as the same FileChanges, and output that is not git's is a GitError,
never another exception."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass

from gradgate.bot.git import parse
from gradgate.checks.diff import ChangeStatus, FileChange, LineSpan
from gradgate.checks.errors import GitError
from hypothesis import given, settings
from hypothesis import strategies as st

# Paths with what git must quote in a patch header (quotes, backslashes, tabs, newlines) and
# what core.quotepath=false leaves as is (spaces, non-ASCII).
PATHS = st.text(alphabet='ab. /"\\\t\néx', min_size=1, max_size=12)
SHA = "0" * 40
FAST = settings(max_examples=60, deadline=None)


@dataclass(frozen=True)
class Hunk:
    old_at: int
    old_count: int
    new_at: int
    new_count: int

    def header(self, *, short_ones: bool) -> str:
        def side(at: int, count: int) -> str:
            return f"{at}" if count == 1 and short_ones else f"{at},{count}"

        return f"@@ -{side(self.old_at, self.old_count)} +{side(self.new_at, self.new_count)} @@"


@st.composite
def hunks(draw: st.DrawFn) -> list[Hunk]:
    found, old, new = [], 1, 1
    for _ in range(draw(st.integers(0, 3))):
        old += draw(st.integers(0, 5))
        new += draw(st.integers(0, 5))
        old_count, new_count = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        if old_count == new_count == 0:
            new_count = 1
        found.append(Hunk(old, old_count, new, new_count))
        old, new = old + old_count + 1, new + new_count + 1
    return found


@dataclass(frozen=True)
class Record:
    letter: str
    path: str
    old_path: str | None
    old_mode: str
    new_mode: str
    hunks: list[Hunk]
    binary: bool


@st.composite
def records(draw: st.DrawFn) -> list[Record]:
    paths = draw(st.lists(PATHS, min_size=1, max_size=4, unique=True))
    found = []
    for path in paths:
        letter = draw(st.sampled_from("AMDRCT"))
        old_path = draw(PATHS.filter(lambda p: p not in paths)) if letter in "RC" else None
        old_mode = {"A": "000000", "T": "100644"}.get(letter, "100644")
        new_mode = {"D": "000000", "T": "120000"}.get(letter, "100644")
        binary = letter != "T" and draw(st.booleans())
        lines = [] if binary else draw(hunks())
        found.append(Record(letter, path, old_path, old_mode, new_mode, lines, binary))
    return found


def written(found: list[Record], *, short_ones: bool) -> bytes:
    """`git diff --raw -z -p -U0` for these records."""
    raw: list[str] = []
    patch: list[str] = []
    for r in found:
        score = "100" if r.letter in "RC" else ""
        raw.append(f":{r.old_mode} {r.new_mode} {SHA} {SHA} {r.letter}{score}")
        raw += [r.old_path, r.path] if r.old_path is not None else [r.path]
        header = parse._header(r.old_path or r.path, r.path).decode("utf-8")
        # A change of type is two sections in the patch: the old file removed, the new added.
        for _ in range(2 if r.letter == "T" else 1):
            patch.append(header)
            if r.binary:
                patch.append(f"Binary files a/{r.path} and b/{r.path} differ")
            for hunk in r.hunks:
                patch.append(hunk.header(short_ones=short_ones))
                patch += ["-old diff --git a/x b/x"] * hunk.old_count
                patch += ["+@@ -1 +1 @@"] * hunk.new_count
    text = "\0".join(raw) + "\0\0" + "".join(line + "\n" for line in patch)
    return text.encode("utf-8")


def expected(r: Record) -> FileChange:
    def spans(pairs: list[tuple[int, int]]) -> tuple[LineSpan, ...]:
        return tuple(LineSpan(at, at + count - 1) for at, count in pairs if count)

    old = spans([(h.old_at, h.old_count) for h in r.hunks])
    new = spans([(h.new_at, h.new_count) for h in r.hunks])
    return FileChange(
        r.path,
        parse._STATUS[r.letter],
        r.old_path,
        old_lines=old * (2 if r.letter == "T" else 1),
        new_lines=new * (2 if r.letter == "T" else 1),
        binary=r.binary,
        symlink=r.letter == "T",
    )


@FAST
@given(records(), st.booleans())
def test_a_diff_as_git_writes_it_reads_back_as_its_changes(
    found: list[Record], short_ones: bool
) -> None:
    changes = parse.parse_with_lines(io.BytesIO(written(found, short_ones=short_ones)))
    assert changes == tuple(expected(r) for r in found)


@FAST
@given(records())
def test_name_status_names_every_path_of_the_changes(found: list[Record]) -> None:
    fields: list[str] = []
    for r in found:
        fields += [r.letter + ("100" if r.old_path else "")]
        fields += [r.old_path, r.path] if r.old_path is not None else [r.path]
    stream = io.BytesIO(("\0".join(fields) + "\0").encode("utf-8"))
    paths, files = parse.read_name_status(stream)
    assert files == len(found)
    assert paths == [p for r in found for p in (r.old_path, r.path) if p is not None]


@FAST
@given(records(), st.data())
def test_a_cut_or_damaged_diff_is_a_git_error(found: list[Record], data: st.DataObject) -> None:
    whole = written(found, short_ones=True)
    cut = data.draw(st.integers(0, len(whole)))
    junk = data.draw(st.binary(max_size=8))
    for damaged in (whole[:cut], whole[:cut] + junk + whole[cut:], junk):
        with contextlib.suppress(GitError):
            parse.parse_with_lines(io.BytesIO(damaged))
        with contextlib.suppress(GitError):
            parse.read_name_status(io.BytesIO(damaged))


@FAST
@given(st.lists(st.text(alphabet=":01 MADRCTx\n@-+", max_size=30), max_size=6))
def test_raw_records_that_are_not_git_s_are_a_git_error(fields: list[str]) -> None:
    stream = io.BytesIO(("\0".join(fields) + "\0\0").encode("utf-8"))
    with contextlib.suppress(GitError):
        parse.parse_with_lines(stream)


def test_the_statuses_are_the_ones_git_writes() -> None:
    assert set(parse._STATUS.values()) == set(ChangeStatus)
