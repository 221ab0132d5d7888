"""Line coverage of the PR's changed lines (issue 20, point 5): the child's recorder, run here
in-process on a real module, and the parent's ranges of changed code that did not run."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from gradgate.checks.diff import ChangeStatus, FileChange, LineSpan
from gradgate.checks.model.child.coverage import executable_lines, recording
from gradgate.checks.model.coverage import FileCoverage, Untested, child_spans, untested

MODULE = '''\
"""A module docstring."""
import functools


def traced(f):
    return f


@traced
@functools.lru_cache
def never(x):
    """Called by nobody.

    Its docstring is not code."""
    # neither is this comment

    return (x +
            1)


def sometimes(flag):
    if flag:
        return "on"
    return "off"
'''


def line(code: str) -> int:
    return next(n for n, text in enumerate(MODULE.splitlines(), 1) if code in text)


def test_only_lines_with_code_are_executable() -> None:
    lines = executable_lines(MODULE, "m.py")

    for code in ('"""Called by nobody.', "Its docstring", "# neither"):
        assert line(code) not in lines, code
    blank = line("# neither") + 1
    assert blank not in lines
    for code in ("return (x +", "1)", 'return "on"', "if flag"):
        assert line(code) in lines, code
    # Module-level code ran at import, maybe before the recording began: never "not run".
    for code in ("import functools", "@functools.lru_cache", "def never(x):"):
        assert line(code) not in lines, code


def test_a_file_this_python_cannot_compile_has_no_executable_lines() -> None:
    assert executable_lines("def broken(:\n    pass\n", "broken.py") == set()


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "covered_mod.py").write_text(MODULE, encoding="utf-8")
    (tmp_path / "other_mod.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("covered_mod", "other_mod"):
        sys.modules.pop(name, None)


def test_the_recorder_sees_which_changed_lines_ran_and_decorators_ran_at_import(
    module: Path,
) -> None:
    spans = {"covered_mod.py": [[1, len(MODULE.splitlines())]], "other_mod.py": [[1, 2]]}
    before = sys.gettrace()

    with recording(str(module), spans) as recorder:
        importlib.import_module("covered_mod").sometimes(True)

    assert recorder is not None
    assert sys.gettrace() is before  # the previous tracer is back
    found = recorder.result()
    covered = found["covered_mod.py"]
    not_run = sorted(set(covered["code"]) - set(covered["ran"]))
    assert not_run == [line("return (x +"), line("1)"), line('return "off"')]
    assert covered["imported"] is True
    assert found["other_mod.py"] == {"code": [1, 2], "ran": [], "imported": False}


def test_nothing_is_traced_when_no_file_is_asked_for(module: Path) -> None:
    with recording(str(module), None) as recorder:
        assert sys.gettrace() is None or recorder is None
    assert recorder is None


def _coverage(code: set[int], ran: set[int], imported: bool = True) -> FileCoverage:
    return FileCoverage(frozenset(code), frozenset(ran), imported)


# (id, coverage of a.py, its changed spans, zone paths, expected ranges)
RANGES = [
    ("all-ran", _coverage({3, 4}, {3, 4}), [(3, 4)], (), []),
    ("one-range-across-a-comment", _coverage({10, 11, 13}, set()), [(10, 13)], (), [(10, 13)]),
    ("a-line-that-ran-splits-it", _coverage({10, 11, 12, 13}, {12}), [(10, 13)], (),
     [(10, 11), (13, 13)]),
    ("two-hunks-two-ranges", _coverage({5, 6, 20}, set()), [(5, 6), (20, 20)], (),
     [(5, 6), (20, 20)]),
    ("never-imported-not-in-a-zone", _coverage({1, 2}, set(), False), [(1, 2)], (), []),
    ("never-imported-in-a-zone", _coverage({1, 2}, set(), False), [(1, 2)], ("a.py",), [(1, 2)]),
    ("no-code-changed", _coverage(set(), set()), [(1, 9)], (), []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("coverage", "spans", "zone", "expected"),
    [row[1:] for row in RANGES],
    ids=[row[0] for row in RANGES],
)
def test_untested_ranges(
    coverage: FileCoverage,
    spans: list[tuple[int, int]],
    zone: tuple[str, ...],
    expected: list[tuple[int, int]],
) -> None:
    lines = {"a.py": tuple(LineSpan(a, b) for a, b in spans)}

    found = untested({"a.py": coverage}, lines, model_files=zone)

    assert found == ([Untested("a.py", tuple(expected))] if expected else [])


def test_the_child_is_asked_about_changed_python_files_only() -> None:
    changes = [
        FileChange("m/attend.py", ChangeStatus.MODIFIED, new_lines=(LineSpan(3, 5),)),
        FileChange("README.md", ChangeStatus.MODIFIED, new_lines=(LineSpan(1, 1),)),
        FileChange("gone.py", ChangeStatus.DELETED, old_lines=(LineSpan(1, 4),)),
        FileChange("blob.py", ChangeStatus.ADDED, binary=True),
    ]

    assert child_spans(changes) == {"m/attend.py": [[3, 5]]}
