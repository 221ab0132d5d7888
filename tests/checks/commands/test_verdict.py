"""The verdict's rule: only what the PR broke blocks; old failures and missing data are notes."""

from __future__ import annotations

import pytest
from gradgate.checks.commands.verdict import Frame, Kind, Raised, Ran, in_diff, judge, ran_from
from gradgate.checks.diff import LineSpan

OK = Ran("ok")
BOOM = Ran(
    "failed", returncode=1, raised=Raised("RuntimeError", "boom", Frame("a.py", 3, "f"), None)
)
HANG = Ran("timeout")
NO_DATA = Ran(
    "failed", returncode=1, raised=Raised("FileNotFoundError", "", None, "data/train.bin")
)
LOST_FILE = Ran(
    "failed", returncode=1, raised=Raised("FileNotFoundError", "", None, "configs/x.yaml")
)
EXIT = Ran("failed", returncode=2)
FILES = frozenset({"a.py", "configs/x.yaml"})


@pytest.mark.parametrize(
    ("head", "base", "kind"),
    [
        (OK, None, Kind.PASSED),
        (BOOM, OK, Kind.BROKE),
        (EXIT, OK, Kind.BROKE),  # argparse refusing a documented flag
        (HANG, OK, Kind.TIMEOUT),
        (BOOM, BOOM, Kind.FAILS_AT_BASE),
        (HANG, HANG, Kind.FAILS_AT_BASE),
        (BOOM, None, Kind.ADDED_BROKEN),
        (NO_DATA, OK, Kind.NEEDS_DATA),
        (NO_DATA, NO_DATA, Kind.NEEDS_DATA),
        (NO_DATA, None, Kind.NEEDS_DATA),  # never a failure of the PR
        (BOOM, NO_DATA, Kind.BROKE),  # head fails before where base got to its data
        (LOST_FILE, OK, Kind.BROKE),  # a file of the repository is no data to bring
    ],
)
def test_verdict(head: Ran, base: Ran | None, kind: Kind) -> None:
    assert judge(head, base, files=FILES) is kind


def test_the_exception_read_is_the_first_with_a_frame_in_the_repository() -> None:
    value = {
        "status": "failed",
        "returncode": 1,
        "errors": [
            {"type": "ChildFailedError", "message": "",
             "frames": [["/x/torch/run.py", 9, "main", None]]},
            {"type": "AttributeError", "message": "no log", "frames": [
                ["/t/train.py", 40, "<module>", "train.py"], ["/t/lib.py", 7, "log", "lib.py"],
                ["/x/torch/nn.py", 1, "__getattr__", None]]},
        ],
    }  # fmt: skip

    ran = ran_from(value)

    assert ran.raised == Raised("AttributeError", "no log", Frame("lib.py", 7, "log"), None)


def test_a_frame_is_placed_in_the_hunk_that_holds_its_line() -> None:
    changed = {"a.py": (LineSpan(2, 4), LineSpan(10, 10))}

    assert in_diff(Frame("a.py", 3, "f"), changed) == LineSpan(2, 4)
    assert in_diff(Frame("a.py", 5, "f"), changed) is None
    assert in_diff(Frame("b.py", 3, "f"), changed) is None
