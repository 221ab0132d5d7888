"""A blocking `protected` finding names the statement as it was (base lines) and, where it still
exists at head, the head line of the edit: the line GitHub can mark."""

from __future__ import annotations

from gradgate.checks.base import Severity

from tests.checks.protected.test_check import only, pull_request
from tests.gitrepo import GitRepo

ABOVE = "import os\nimport sys\n\n"  # three lines the PR adds above: head lines shift by 3


def test_an_edited_trailing_marked_line_names_its_head_line(repo: GitRepo) -> None:
    base = 'EPOCHS = 3\nRUNS = "runs/v3"  # NO_REFAC\n'
    head = ABOVE + base.replace("v3", "v4")
    result = pull_request(repo, {"train.py": base}, {"train.py": head})

    found = only(result, "protected-line-changed")

    assert (found.file, found.line, found.revision) == ("train.py", 2, "base")
    assert (found.head_file, found.head_line) == ("train.py", 5)
    assert head.splitlines()[found.head_line - 1] == 'RUNS = "runs/v4"  # NO_REFAC'


def test_an_edit_inside_a_protected_function_names_the_edited_head_line(repo: GitRepo) -> None:
    base = "# NO_REFAC\ndef f(x):\n    y = x + 1\n    return y\n"
    head = ABOVE + base.replace("return y", "return y * 2")

    found = only(pull_request(repo, {"m.py": base}, {"m.py": head}), "protected-line-changed")

    assert found.line == 1  # the marker, at base
    assert found.head_line == 7 and head.splitlines()[6] == "    return y * 2"


def test_an_edit_in_a_renamed_file_names_the_new_path(repo: GitRepo) -> None:
    base = 'RUNS = "runs/v3"  # NO_REFAC\n' + "".join(f"x{i} = {i}\n" for i in range(20))
    result = pull_request(
        repo,
        {"old.py": base},
        {"new.py": base.replace("v3", "v4")},
        moves=(("old.py", "new.py"),),
    )

    found = only(result, "protected-line-changed")
    assert (found.file, found.head_file, found.head_line) == ("old.py", "new.py", 1)


def test_a_removed_own_line_marker_names_the_statement_it_left(repo: GitRepo) -> None:
    base = "x = 1\n# NO_REFAC\nLR = 0.1\n"
    head = ABOVE + "x = 1\nLR = 0.1\n"

    found = only(pull_request(repo, {"m.py": base}, {"m.py": head}), "protection-removed")

    assert (found.line, found.head_line) == (2, 5)  # the base marker; the bare statement
    assert head.splitlines()[4] == "LR = 0.1"


def test_a_deleted_file_has_no_head_line(repo: GitRepo) -> None:
    result = pull_request(repo, {"m.py": "LR = 0.1  # NO_REFAC\n"}, {"m.py": None})

    found = only(result, "protected-line-deleted")
    assert (found.head_file, found.head_line) == (None, None)


def test_findings_about_the_head_need_no_head_line(repo: GitRepo) -> None:
    result = pull_request(repo, {"m.py": "x = 1\n"}, {"m.py": "x = 1\nLR = 0.1  # NO_REFAC\n"})

    found = only(result, "protection-added")
    assert found.severity is Severity.NOTE and found.revision == "head"
    assert (found.line, found.head_line) == (2, None)
