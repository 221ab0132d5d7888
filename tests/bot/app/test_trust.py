"""Who may run a PR's code, /ok-to-test binding, GPU routing, and merging partial runs (pure)."""

from __future__ import annotations

import pytest
from gradgate.bot.app.approval import Approved, Refused, approve
from gradgate.bot.app.combine import from_wire, merge, to_rerun, to_wire
from gradgate.bot.app.trust import Gpu, deferred_to_gpu, hold_for, may_run_code, message, needs_gpu
from gradgate.bot.plan.plan import ConfigOrigin, Plan, PlannedCheck
from gradgate.bot.report.render import Report
from gradgate.bot.report.verdict import Verdict, verdict_for
from gradgate.bot.templates import render_template
from gradgate.checks.base import CheckResult, CheckSettings, Outcome

A, B = "a" * 40, "b" * 40


@pytest.mark.parametrize(
    ("can_write", "approved", "head", "expected"),
    [
        (True, (), A, True),
        (False, (), A, False),
        (False, (A,), A, True),
        (False, (A,), B, False),  # approved A, then a push to B: the approval ended
        (False, (A, B), A, True),  # approving B (say `/ok-to-test <B>`) kept A's approval
    ],
)
def test_code_runs_for_writers_or_an_ok_to_test_for_this_very_head(
    can_write: bool, approved: tuple[str, ...], head: str, expected: bool
) -> None:
    assert may_run_code(author_can_write=can_write, approved=approved, head_sha=head) is expected


T = 1_000_000.0  # a push time, in seconds on GitHub's clock
PUSHES = [(A, T), (B, T + 1000)]


@pytest.mark.parametrize(
    ("named", "written_at", "current", "confirm_s", "expected"),
    [
        (None, T + 1000 + 600, B, 600, Approved(B)),  # B was the head for confirm_s: approved
        (None, T + 1000 + 599, B, 600, Refused.CONFIRM),  # too soon after B's push: name it
        (None, T + 1000, B, 0, Approved(B)),  # a push at the comment's second counts as before
        (None, T + 999, B, 0, Refused.MOVED),  # written while A was the head: B was never seen
        (None, T - 1, A, 0, Refused.CONFIRM),  # before any recorded push: unknown
        (None, None, B, 0, Refused.CONFIRM),  # no time at all
        (None, T + 5000, "c" * 40, 0, Refused.MOVED),  # a head with no recorded push yet
        (A, T + 1001, B, 600, Approved(A)),  # `/ok-to-test <sha>`: exactly that commit
        (B, T + 1001, B, 600, Approved(B)),
    ],
)
def test_an_ok_to_test_binds_to_the_head_when_it_was_written(
    named: str | None,
    written_at: float | None,
    current: str,
    confirm_s: float,
    expected: Approved | Refused,
) -> None:
    got = approve(
        named=named, written_at=written_at, pushes=PUSHES, current=current, confirm_s=confirm_s
    )
    assert got == expected


@pytest.mark.parametrize(
    ("refused", "words"),
    [
        (Refused.MOVED, f"changed (`{A[:7]}` → `{B[:7]}`)"),
        (Refused.CONFIRM, f"comment `/ok-to-test {B}` to let gradgate run its code"),
    ],
)
def test_each_refusal_is_answered_in_its_own_words(refused: Refused, words: str) -> None:
    """The App replies with the refusal's value as the reply's `why` (decide._approve)."""
    body = render_template(
        "recheck_reply.md.j2", marker="", why=str(refused), author="octo", head_sha=B, seen=A
    )
    assert words in body and "is approved" not in body


class Device(CheckSettings):
    device: str = "cpu"


def planned(name: str, *, code: bool) -> PlannedCheck:
    return PlannedCheck(name, name, True, (), True, code)


@pytest.mark.parametrize(
    ("device", "auto_to_gpu", "expected"),
    [("cpu", True, False), ("cuda", False, True), ("auto", False, False), ("auto", True, True)],
)
def test_gpu_routing(device: str, auto_to_gpu: bool, expected: bool) -> None:
    assert needs_gpu(Device(device=device), auto_to_gpu=auto_to_gpu) is expected
    assert not needs_gpu(CheckSettings(), auto_to_gpu=True)  # no device setting: CPU


def test_untrusted_runs_static_checks_and_holds_code_checks() -> None:
    hold = hold_for(user_code=False, gpu=Gpu.RUN, auto_to_gpu=False)
    assert hold(planned("protected", code=False), CheckSettings()) is None
    waiting = hold(planned("gradient", code=True), Device(device="cuda"))
    assert waiting is not None and "/ok-to-test" in waiting and len(waiting) <= 140


def test_an_untrusted_run_does_the_checkpoint_checks_static_part_and_holds_the_rest() -> None:
    """Only a check that opts in (the checkpoint check) runs its file-reading part unapproved;
    every other code-running check, and one gradgate does not know, waits for /ok-to-test."""
    hold = hold_for(user_code=False, gpu=Gpu.DEFER, auto_to_gpu=True)
    assert hold(planned("checkpoint", code=True), Device(device="cuda")) is None
    for name in ("gradient", "behaviour", "no-such-check"):
        assert hold(planned(name, code=True), CheckSettings()) == message("wait-ok-to-test")


def test_a_cpu_worker_defers_gpu_checks_and_a_gpu_worker_runs_them() -> None:
    cuda = Device(device="cuda")
    deferred = hold_for(user_code=True, gpu=Gpu.DEFER, auto_to_gpu=False)
    assert "GPU" in (deferred(planned("gradient", code=True), cuda) or "")
    assert deferred(planned("gradient", code=True), Device()) is None
    assert (
        hold_for(user_code=True, gpu=Gpu.RUN, auto_to_gpu=True)(
            planned("gradient", code=True), cuda
        )
        is None
    )


def result(name: str, outcome: Outcome) -> CheckResult:
    return CheckResult(check=name, outcome=outcome, summary=str(outcome))


def report(*results: CheckResult, head: str = A) -> Report:
    plan = Plan(
        checks=tuple(planned(r.check, code=r.check == "gradient") for r in results),
        zones={},
        changed_files=1,
        config_origin=ConfigOrigin.BASE,
        config_changed=False,
    )
    return Report(
        verdict=verdict_for(results), results=results, plan=plan, head_sha=head, base_sha=B
    )


def test_only_the_checks_waiting_for_a_gpu_go_to_the_gpu_half() -> None:
    """The GPU half gets what waits for a GPU worker; not what waits for /ok-to-test, nor what
    finished."""
    waiting = [
        CheckResult(check="gradient", outcome=Outcome.WAITING, summary=message("wait-gpu")),
        CheckResult(check="protected", outcome=Outcome.PASS, summary="ok"),
        CheckResult(
            check="checkpoint", outcome=Outcome.WAITING, summary=message("wait-ok-to-test")
        ),
        CheckResult(check="behaviour", outcome=Outcome.WAITING, summary=message("wait-gpu")),
    ]
    assert deferred_to_gpu(report(*waiting)) == ("gradient", "behaviour")
    assert deferred_to_gpu(report(*waiting[1:3])) == ()


def test_a_waiting_check_keeps_the_verdict_pending_never_success() -> None:
    assert (
        verdict_for([result("protected", Outcome.PASS), result("gradient", Outcome.WAITING)])
        is Verdict.PENDING
    )
    assert (
        verdict_for([result("protected", Outcome.FAIL), result("gradient", Outcome.WAITING)])
        is Verdict.FAILURE
    )


def test_the_gpu_half_completes_the_cpu_half() -> None:
    cpu = report(result("protected", Outcome.PASS), result("gradient", Outcome.WAITING))
    gpu = report(result("gradient", Outcome.FAIL))
    merged = merge(from_wire(to_wire(cpu)), from_wire(to_wire(gpu)), checks=["gradient"])
    assert [r.outcome for r in merged.results] == [Outcome.PASS, Outcome.FAIL]
    assert merged.verdict is Verdict.FAILURE


def test_recheck_reruns_what_failed_errored_or_waits_and_keeps_the_rest() -> None:
    earlier = report(
        result("protected", Outcome.PASS),
        result("config-docs", Outcome.FAIL),
        result("gradient", Outcome.ERROR),
    )
    assert to_rerun(earlier) == ("config-docs", "gradient")
    fresh = report(result("config-docs", Outcome.PASS), result("gradient", Outcome.PASS))
    assert merge(earlier, fresh, checks=to_rerun(earlier)).verdict is Verdict.SUCCESS


def test_a_fresh_run_for_another_head_or_one_that_broke_replaces_everything() -> None:
    earlier = report(result("protected", Outcome.PASS))
    moved = report(result("protected", Outcome.FAIL), head=B)
    assert merge(earlier, moved, checks=["protected"]) == moved
    broken = Report(verdict=Verdict.ERROR, error="boom", head_sha=A, base_sha=B)
    assert merge(earlier, broken, checks=["protected"]).verdict is Verdict.ERROR
