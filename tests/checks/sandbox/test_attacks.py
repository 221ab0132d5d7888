"""A hostile PR's model code, run the way gradgate runs it on a runner that holds tokens.

Each attack of issue 6 under bubblewrap: nothing leaks, nothing outside the run's copy changes,
no process is left, and the run ends as the right kind. Beside each, the same attack with
process-level isolation only, where it works: that is what the report's "process-level only"
warns about, and it shows the attack would have found what the sandbox hides.
"""

from __future__ import annotations

import contextlib
import os
import signal

import pytest

from tests.checks.sandbox.conftest import Victim
from tests.checks.sandbox.hostile import is_gone, marked_processes, new_mark, snapshot

STRONG, WEAK = "require", "process"


# --- tokens and credentials --------------------------------------------------------------


def test_under_bubblewrap_user_code_finds_no_token_no_credentials_and_no_git(
    victim: Victim, bubblewrap: str
) -> None:
    run = victim.run("steals_secrets", STRONG, kwargs=victim.paths)
    assert run.returncode == 0, run.stderr
    assert run.value["leaks"] == []
    assert "userpkg" in run.value["tree"]
    assert ".git" not in run.value["tree"]  # a copy of the checkout, at its path
    assert run.value["cwd"] == str(victim.checkout)
    assert run.isolation["sandbox"] == "bubblewrap"


def test_with_process_level_isolation_the_same_code_finds_the_tokens(victim: Victim) -> None:
    run = victim.run("steals_secrets", WEAK, kwargs=victim.paths)
    leaks = set(run.value["leaks"])
    assert any(leak.startswith("/proc/") and leak.endswith("/environ") for leak in leaks)
    assert f"{victim.home}/.git-credentials" in leaks
    assert f"{victim.repository}/.git/config" in leaks  # the checkout's extraheader
    if os.geteuid() == 0:  # reading another process's memory needs ptrace rights
        assert "parent's stack" in leaks
    assert "own environment" not in leaks  # the allow-list still holds
    assert ".git" in run.value["tree"]  # it runs in the checkout itself
    assert run.isolation["sandbox"] == "process"


# --- files outside the copy, and gradgate itself -----------------------------------------


def test_under_bubblewrap_user_code_cannot_touch_files_outside_its_copy_or_kill_gradgate(
    victim: Victim, bubblewrap: str
) -> None:
    victims = [
        victim.home / "precious.txt",
        victim.repository / "model.py",
        victim.checkout / "model.py",
        victim.repository / ".git" / "config",
    ]
    before = snapshot(victim.home, victim.repository, victim.checkout)
    run = victim.run(
        "vandalises", STRONG, kwargs={"victims": [str(v) for v in victims], "kill_everything": True}
    )
    assert run.returncode == 0, run.stderr  # gradgate survived kill(-1, SIGKILL)
    copy = victim.checkout / "model.py"  # at the checkout's path, the child's own copy
    assert run.value == [f"removed {copy}", f"wrote {copy}"]
    assert snapshot(victim.home, victim.repository, victim.checkout) == before
    assert list(victim.tmp.iterdir()) == []  # and removed its run folder


def test_with_process_level_isolation_user_code_deletes_files_and_kills_gradgate(
    victim: Victim,
) -> None:
    precious = victim.home / "precious.txt"
    run = victim.run(
        "vandalises", WEAK, kwargs={"victims": [str(precious)], "kill_everything": False}
    )
    assert run.returncode == -signal.SIGKILL  # gradgate was killed...
    assert list(victim.tmp.iterdir()) != []  # ...and left its run folder behind
    assert precious.read_text() == "vandalised"


# --- processes that outlive the run ------------------------------------------------------


@pytest.mark.parametrize(("then", "kind"), [("hang", "timeout"), ("return", None)])
def test_under_bubblewrap_daemons_die_with_the_run(
    victim: Victim, bubblewrap: str, then: str, kind: str | None
) -> None:
    mark = new_mark()
    run = victim.run(
        "starts_daemons",
        STRONG,
        kwargs={"mark": mark, "then": then},
        limits={"timeout_s": 3},
        mark=mark,
    )
    assert run.kind == kind
    if kind == "timeout":
        assert "with every process it started" in run.answer["message"]
    assert len(run.marked) >= 3, "the daemons were never seen running"
    assert all(is_gone(pid) for pid in run.marked)
    assert marked_processes(mark) == set()


def test_process_level_with_a_cgroup_still_stops_every_daemon(victim: Victim) -> None:
    mark = new_mark()
    run = victim.run(
        "starts_daemons",
        WEAK,
        kwargs={"mark": mark, "then": "hang"},
        limits={"timeout_s": 3},
        mark=mark,
    )
    if run.isolation["cgroup"] is None:
        pytest.skip("gradgate cannot make a cgroup on this machine")
    assert run.kind == "timeout"
    assert run.isolation["contained"] is True
    assert len(run.marked) >= 3
    assert all(is_gone(pid) for pid in run.marked)


def test_process_level_without_a_cgroup_says_daemons_may_outlive_the_run(victim: Victim) -> None:
    mark = new_mark()
    run = victim.run(
        "starts_daemons",
        WEAK,
        kwargs={"mark": mark, "then": "hang"},
        limits={"timeout_s": 3, "cgroup": False},
        mark=mark,
    )
    left = marked_processes(mark)
    for pid in left:  # the honest report's subject: clean up after it
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert run.kind == "timeout"
    assert "processes that left the group may still be running" in run.answer["message"]
    assert run.isolation["contained"] is False
    assert left, "setsid daemons escape a process group: the warning must not be idle"


# --- limits for the whole run ------------------------------------------------------------

# Bubblewrap with and without a cgroup for the run (where none can be made, both are without),
# and process-level isolation with one. Where a limit cannot hold for the whole run, the run's
# isolation must say so.
LIMIT_CASES = [(STRONG, True), (STRONG, False), (WEAK, True)]


@pytest.mark.parametrize(("sandbox", "cgroup"), LIMIT_CASES)
def test_a_fork_bomb_stops_at_the_process_limit_of_the_whole_run(
    victim: Victim, sandbox: str, cgroup: bool, request: pytest.FixtureRequest
) -> None:
    if sandbox == STRONG:
        request.getfixturevalue("bubblewrap")
    mark = new_mark()
    run = victim.run(
        "forks_without_end",
        sandbox,
        kwargs={"mark": mark, "most": 150},
        limits={"processes": 40, "timeout_s": 10, "cgroup": cgroup},
        mark=mark,
    )
    assert all(is_gone(pid) for pid in run.marked)
    if run.isolation["processes"] is None:  # root without a cgroup: reported, not hidden
        assert run.value == "started 150 processes"
        return
    assert run.kind == "processes"
    assert "at most 40 at once" in run.answer["message"]
    assert 10 < run.peak < 40


@pytest.mark.parametrize(("sandbox", "cgroup"), LIMIT_CASES)
def test_memory_cap_holds_for_all_processes_of_the_run_together(
    victim: Victim, sandbox: str, cgroup: bool, request: pytest.FixtureRequest
) -> None:
    if sandbox == STRONG:
        request.getfixturevalue("bubblewrap")
    mark = new_mark()
    run = victim.run(
        "allocates_in_processes",
        sandbox,
        kwargs={"mark": mark, "processes": 3, "mb": 120},  # each under the cap, not together
        limits={"memory_mb": 256, "cgroup": cgroup},
        mark=mark,
    )
    assert all(is_gone(pid) for pid in run.marked)
    if run.isolation["memory"] == "process":  # no cgroup here: reported, not hidden
        assert run.value == [0, 0, 0]
        return
    assert run.isolation["memory"] == "run"
    assert run.kind == "memory"
    assert (
        "memory limit of 256 MB, which holds for the child and every process"
        in (run.answer["message"])
    )


# --- the result ---------------------------------------------------------------------------


def test_user_code_can_forge_its_own_result_which_is_why_untrusted_prs_wait_for_ok_to_test(
    victim: Victim, bubblewrap: str
) -> None:
    # Inherent: the result comes from the process that runs user code. The doors run
    # code-executing checks for authors without write access only after a trusted /ok-to-test.
    run = victim.run("forges_its_result", STRONG)
    assert run.value == "all gradients fine"
