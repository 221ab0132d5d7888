"""bot.deadline: a step past its limit is abandoned, and never keeps gradgate from exiting."""

from __future__ import annotations

import subprocess
import sys

import pytest
from gradgate.bot.deadline import TimedOut, within


def test_a_step_within_its_limit_gives_its_value_or_its_error() -> None:
    assert within(5, lambda: 42) == 42
    assert within(5, lambda: None) is None
    with pytest.raises(ZeroDivisionError):
        within(5, lambda: 1 // 0)


def test_a_step_past_its_limit_times_out() -> None:
    with pytest.raises(TimedOut):
        within(0.2, lambda: __import__("time").sleep(5))


def test_an_abandoned_step_does_not_keep_the_process_alive() -> None:
    program = (
        "import time\n"
        "from gradgate.bot.deadline import TimedOut, within\n"
        "try:\n"
        "    within(0.2, lambda: time.sleep(60))\n"
        "except TimedOut:\n"
        "    print('timed out', flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=30, check=True
    )
    assert done.stdout == "timed out\n"
