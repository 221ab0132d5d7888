"""bot.report.lines: the changed lines a report carries, for the files its findings name."""

from __future__ import annotations

from gradgate.bot.report.lines import DiffLines, diff_lines, union
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity
from gradgate.checks.diff import ChangeStatus, FileChange, LineSpan

S = LineSpan


def result(*files: str, head_file: str | None = None) -> CheckResult:
    findings = tuple(
        Finding(kind="k", severity=Severity.NOTE, message="m", file=f, line=1, head_file=head_file)
        for f in files
    )
    return CheckResult(check="c", outcome=Outcome.PASS, summary="s", findings=findings)


CHANGES = (
    FileChange("a.py", ChangeStatus.MODIFIED, old_lines=(S(1, 2),), new_lines=(S(3, 4),)),
    FileChange("quiet.py", ChangeStatus.MODIFIED, old_lines=(S(1, 1),), new_lines=(S(1, 1),)),
    FileChange("new.py", ChangeStatus.RENAMED, old_path="old.py", old_lines=(S(5, 5),)),
    FileChange("copy.py", ChangeStatus.COPIED, old_path="a.py", new_lines=(S(9, 9),)),
    FileChange("gone.py", ChangeStatus.DELETED, old_lines=(S(1, 3),)),
)


def test_only_the_files_findings_name_are_carried_on_each_side() -> None:
    lines = diff_lines(CHANGES, [result("a.py", "gone.py", "old.py")])

    assert lines.head == {"a.py": (S(3, 4),)}
    assert lines.base == {"a.py": (S(1, 2),), "gone.py": (S(1, 3),), "old.py": (S(5, 5),)}
    assert lines.renamed == {"old.py": "new.py"}
    assert lines.changed("a.py", 4, "RIGHT") and not lines.changed("a.py", 4, "LEFT")
    assert lines.diff_path("old.py") == "new.py" and lines.diff_path("a.py") == "a.py"


def test_a_copy_s_source_is_not_part_of_the_diff() -> None:
    lines = diff_lines(CHANGES, [result("copy.py")])

    assert lines.head == {"copy.py": (S(9, 9),)} and lines.base == {}


def test_a_finding_s_head_file_counts_too() -> None:
    assert diff_lines(CHANGES, [result("old.py", head_file="a.py")]).head == {"a.py": (S(3, 4),)}


def test_the_check_jobs_lines_are_joined_and_none_stays_unknown() -> None:
    one = DiffLines(head={"a.py": (S(1, 1),)})
    two = DiffLines(base={"b.py": (S(2, 2),)}, renamed={"b.py": "c.py"})

    assert union([one, None, two]) == DiffLines(
        head={"a.py": (S(1, 1),)}, base={"b.py": (S(2, 2),)}, renamed={"b.py": "c.py"}
    )
    assert union([None, None]) is None
