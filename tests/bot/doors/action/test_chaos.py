"""`gradgate action` when the report is huge and when GitHub misbehaves (the fake's faults)."""

from __future__ import annotations

import re

import pytest
from gradgate.bot.github.results import CHECK_FILE
from gradgate.bot.github.split import COMMENT_LIMIT
from gradgate.bot.github.sticky import Stamp

from tests.bot.doors.action.world import NUMBER, REPO, TRAIN, World

EDITED = TRAIN.replace("runs/v3", "runs/v4")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _protected_functions(count: int, *, value: int) -> str:
    body = "".join(
        f"    step_{j} = scale * {value} + {j}  # the learning-rate schedule, part {j}\n"
        for j in range(25)
    )
    return "".join(
        f"# NO_REFAC\ndef schedule_{i}(scale):\n{body}    return scale\n\n\n" for i in range(count)
    )


def test_a_200_kb_report_is_split_cleanly_and_shrinks_back_to_one_comment(world: World) -> None:
    world.repo.checkout("main")
    world.repo.write("train.py", _protected_functions(120, value=1))
    world.repo.commit("a long schedule")
    world.repo.checkout("pr")
    world.repo.git("rebase", "-q", "main")
    world.push(_protected_functions(120, value=2), "retune every schedule")

    assert world.pull_request() == 1

    parts = world.report_comments()
    assert sum(len(p) for p in parts) > 200_000
    assert len(parts) >= 4
    for k, part in enumerate(parts, start=1):
        assert len(part) <= COMMENT_LIMIT
        stamp = Stamp.read(part)
        assert stamp is not None and (stamp.part, stamp.parts) == (k, len(parts))
        fences = [line for line in part.splitlines() if _FENCE.match(line)]
        assert len(fences) % 2 == 0
        assert part.count("<details>") == part.count("</details>")
    assert "gradgate failed" in parts[0] and "schedule_0" in parts[0]

    world.push(_protected_functions(120, value=1), "put them back")
    assert world.pull_request() == 0
    (only,) = world.report_comments()
    assert "gradgate passed" in only


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_with_a_fifth_of_api_calls_failing_every_run_ends_with_one_comment_and_a_final_status(
    world: World, seed: int
) -> None:
    world.github.faults.chaos(0.2, seed=seed)
    results = world.tmp / "results"

    def final(sha: str) -> str:
        return world.statuses(sha)["gradgate"]

    assert world.pull_request("opened") == 0
    assert final(world.head) == "success"
    assert len(world.report_comments()) == 1
    world.push(EDITED)
    assert world.pull_request() == 1
    assert final(world.head) == "failure"
    assert len(world.report_comments()) == 1

    # A check that errored (its job crashed: no result) must never come out as a success.
    world.push(TRAIN)
    assert world.pull_request("synchronize", "--stage", "plan", "--results", str(results)) == 0
    assert not (results / CHECK_FILE.format(name="protected")).exists()
    assert world.pull_request("synchronize", "--stage", "publish", "--results", str(results)) == 0
    assert final(world.head) == "error"
    assert len(world.report_comments()) == 1
    assert world.statuses(world.head)["gradgate/protected"] == "error"

    (comment,) = world.report_comments()
    assert "could not decide" in comment or "no result" in comment
    assert world.github.faults.injected > 0
    statuses = world.github.repo(REPO).statuses
    assert not any(
        s.context == "gradgate" and s.state == "success" and s.sha == world.head for s in statuses
    )


def test_when_retries_run_out_the_run_fails_and_says_so(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.env["GRADGATE_GITHUB_RETRIES"] = "1"
    world.github.faults.fail_next(100, status=503)

    assert world.pull_request("opened") == 2

    assert "gradgate: error:" in capsys.readouterr().err
    assert world.github.repo(REPO).statuses == [] and world.github.comments(REPO, NUMBER) == []


def test_a_secondary_rate_limit_is_waited_out(world: World) -> None:
    world.github.faults.only = re.compile(r"^POST .*/statuses/")
    world.github.faults.rate_limit_next(2, retry_after=1)

    assert world.pull_request("opened") == 0

    assert world.statuses(world.head)["gradgate"] == "success"
    assert [r.status for r in world.github.requests("POST", "/statuses/")][:3] == [403, 403, 201]


def test_slow_answers_are_waited_for(world: World) -> None:
    world.github.faults.delay_s = 0.05

    assert world.pull_request("opened") == 0
    assert len(world.report_comments()) == 1
