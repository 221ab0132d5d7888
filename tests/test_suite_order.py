"""tests/conftest.py's tables name tests that exist: a prefix naming none would silently leave a
test out of the slow group, in the default run, or last in the queue."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import KEPT, LONG, SLOW, cost

ROOT = Path(__file__).resolve().parents[1]


def names_a_test(prefix: str) -> bool:
    """A file of tests, or a test function (a prefix of its name, or one's parameters) in one."""
    path, _, name = prefix.partition("::")
    name = name.partition("[")[0]
    file = ROOT / path
    if not (path.startswith("tests/") and file.name.startswith("test_") and file.is_file()):
        return False
    return not name or re.search(rf"^\s*def {re.escape(name)}", file.read_text(), re.M) is not None


@pytest.mark.parametrize("prefix", [*SLOW, *KEPT, *LONG])
def test_each_prefix_names_a_test(prefix: str) -> None:
    assert names_a_test(prefix), f"{prefix} names no test"


def test_a_prefix_that_names_no_test_is_caught() -> None:
    assert not names_a_test("tests/checks/perf/test_check.py::test_no_such_test")
    assert not names_a_test("tests/checks/perf/test_no_such_file.py")
    assert names_a_test("tests/checks/perf/test_check.py::test_unchanged_code_never_blocks[1]")
    assert names_a_test("tests/checks/perf/test_check.py::test_unchanged_code")


def test_the_longest_prefix_decides_a_tests_cost() -> None:
    assert cost("tests/no/such/test_file.py::test_short") == 0
    for prefix, seconds in LONG.items():
        assert cost(prefix + "[some-parameter]") == seconds
