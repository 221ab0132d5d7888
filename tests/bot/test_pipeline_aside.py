"""Work done aside by a forked copy of the process (bot.pipeline.aside): its answer, or None
whatever happened to it, and never a copy left behind.

A copy is made only with one thread running, as in `gradgate plan`; the test runner has more
(pytest-xdist's), so what a copy does is tried in a fresh interpreter (`fresh`)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import pytest
from gradgate.bot.pipeline.aside import aside

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="copies are made on Linux only")


def fresh(script: str, *args: str) -> dict[str, object]:
    """What ``script`` prints last, as JSON, run by a fresh interpreter (one thread)."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_copy_gives_its_answer_and_one_that_failed_gives_none() -> None:
    got = fresh(
        """
        import json, os, time
        from gradgate.bot.pipeline.aside import aside

        def boom():
            raise RuntimeError("boom")

        def work():
            return {"pid": os.getpid(), "pair": ("a", 1), "many": list(range(10**5))}

        out = {}
        with aside(work) as copy:
            answer = copy.result()
        out["answer"] = [answer["pid"] != os.getpid(), answer["pair"], sum(answer["many"])]
        with aside(boom) as copy:
            out["raised"] = copy.result()
        with aside(lambda: os.kill(os.getpid(), 9)) as copy:
            out["killed"] = copy.result()
        with aside(lambda: time.sleep(60)) as copy:  # left early: stopped and reaped
            pass
        try:
            os.waitpid(-1, os.WNOHANG)
            out["left"] = "a child"
        except ChildProcessError:
            out["left"] = "none"
        print(json.dumps(out))
        """
    )
    # The copy's own process; tuples stay tuples; a failed or killed copy is no answer, and the
    # caller goes on; no copy outlives its block.
    assert got == {
        "answer": [True, ["a", 1], sum(range(10**5))],
        "raised": None,
        "killed": None,
        "left": "none",
    }


def test_no_copy_is_made_while_another_thread_runs() -> None:
    """A lock another thread holds at the fork would never be released in the copy."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with aside(lambda: 1) as copy:
            assert copy is None
    finally:
        stop.set()
        other.join()
