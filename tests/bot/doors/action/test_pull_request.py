"""`gradgate action` on pull_request events, end to end: real payloads, a real git repository,
the checks in a real child process, PyGithub over HTTP to the fake GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradgate.bot.github.sticky import Stamp
from gradgate.checks import REGISTRY

from tests.bot.doors.action.world import NUMBER, REPO, TRAIN, World

EDITED = TRAIN.replace("runs/v3", "runs/v4")


def test_open_push_push_leaves_exactly_one_comment_and_the_right_statuses(world: World) -> None:
    assert world.pull_request("opened") == 0
    first = world.github.comments(REPO, NUMBER)
    assert len(first) == 1 and "gradgate passed" in first[0].body
    assert world.statuses(world.head) == {
        "gradgate": "success",
        **{
            f"gradgate/{c}": "success"
            for c in REGISTRY  # every check: a skipped one succeeds with its reason
        },
    }

    world.push(EDITED, "edit a protected line")  # pass -> fail: a new comment, so people hear
    assert world.pull_request() == 1
    second = world.github.comments(REPO, NUMBER)
    assert len(second) == 1 and second[0].id != first[0].id
    assert "gradgate failed" in second[0].body and "train.py:1" in second[0].body
    assert world.statuses(world.head)["gradgate"] == "failure"
    assert world.statuses(world.head)["gradgate/protected"] == "failure"

    world.push(TRAIN, "put it back")  # fail -> pass: the same comment, edited
    assert world.pull_request() == 0
    third = world.github.comments(REPO, NUMBER)
    assert [c.id for c in third] == [second[0].id]
    assert "gradgate passed" in third[0].body
    stamp = Stamp.read(third[0].body)
    assert stamp is not None and (stamp.head, stamp.verdict) == (world.head, "success")
    assert world.statuses(world.head)["gradgate"] == "success"


def test_statuses_are_pending_while_the_checks_run(world: World) -> None:
    world.pull_request("opened")

    states = [(r.context, r.state) for r in world.github.repo(REPO).statuses if r.sha == world.head]
    assert states.index(("gradgate", "pending")) < states.index(("gradgate", "success"))
    assert ("gradgate/protected", "pending") in states


def test_an_unchanged_report_is_not_edited(world: World) -> None:
    world.pull_request("opened")
    world.pull_request("reopened")

    assert world.github.requests("PATCH") == []
    assert len(world.github.comments(REPO, NUMBER)) == 1


def test_the_job_summary_has_the_report(world: World) -> None:
    world.push(EDITED)
    world.pull_request()

    summary = (world.tmp / "summary.md").read_text(encoding="utf-8")
    assert "gradgate failed" in summary and "train.py:1" in summary


def test_a_closed_pull_request_runs_nothing_and_posts_nothing_when_its_head_is_its_own(
    world: World,
) -> None:
    assert world.pull_request("closed") == 0

    # It only asks which other open PRs have its head (issue 34): none, so nothing is written.
    assert [(r.method, r.path.split("/")[-1]) for r in world.github.log] == [("GET", "pulls")]


def test_a_head_that_moves_mid_run_is_not_published_as_current(world: World) -> None:
    old = world.push(EDITED)
    newer = "d" * 40  # a push GitHub saw while the checks ran

    def push_during_the_run(method: str, path: str) -> None:
        if method == "POST" and path.endswith(f"/statuses/{old}"):
            world.github.repo(REPO).pulls[NUMBER].head_sha = newer

    world.github.hooks.append(push_during_the_run)
    world.pull_request()

    (comment,) = world.github.comments(REPO, NUMBER)
    assert "Superseded" in comment.body and f"`{newer[:7]}`" in comment.body
    assert world.statuses(newer) == {}  # nothing claims anything about the new head
    assert world.statuses(old)["gradgate"] == "failure"


def test_a_bad_config_at_base_is_an_error_status_and_comment_never_a_pass(world: World) -> None:
    world.repo.checkout("main")
    world.repo.write(".gradgate.yml", "zones: [oops\n")
    world.repo.commit("break the config")
    world.repo.checkout("pr")
    world.repo.git("rebase", "-q", "main")
    world.github.repo(REPO).pulls[NUMBER].head_sha = world.head

    assert world.pull_request() == 2

    (comment,) = world.github.comments(REPO, NUMBER)
    assert "could not finish" in comment.body
    assert world.statuses(world.head) == {"gradgate": "error"}


def test_the_checks_never_see_the_token(world: World, tmp_path: Path) -> None:
    # A stand-in for the checks' process that records its environment.
    spy = tmp_path / "spy.py"
    spy.write_text(
        "import json, os, sys\n"
        f"json.dump(dict(os.environ), open({str(tmp_path / 'env.json')!r}, 'w'))\n"
        "sys.exit(2)\n"
    )
    world.monkeypatch.setattr(
        "gradgate.bot.doors.isolated.check_command",
        lambda request: [__import__("sys").executable, str(spy)],
    )
    world.env["GH_TOKEN"] = "another-secret"

    assert world.pull_request() == 2

    seen = __import__("json").loads((tmp_path / "env.json").read_text())
    assert "GITHUB_TOKEN" not in seen and "GH_TOKEN" not in seen
    assert "PATH" in seen
    (comment,) = world.github.comments(REPO, NUMBER)
    assert "exit code 2 without a report" in comment.body  # a child that dies is an error
    assert world.statuses(world.head)["gradgate"] == "error"
    assert world.statuses(world.head)["gradgate/protected"] == "error"  # not left pending


def test_without_a_token_the_action_says_how_to_pass_one(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.token = ""

    assert world.pull_request("opened") == 2

    err = capsys.readouterr().err
    assert "GITHUB_TOKEN is not set" in err and "token: ${{ github.token }}" in err


def test_retry_settings_that_are_not_numbers_are_refused(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.env["GRADGATE_GITHUB_RETRIES"] = "many"

    assert world.pull_request("opened") == 2

    assert "GRADGATE_GITHUB_RETRIES is not a number: 'many'" in capsys.readouterr().err


def test_a_fork_pull_request_with_a_read_only_token_fails_loudly(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.token = world.github.token(write=False)

    assert world.pull_request("opened") == 2

    err = capsys.readouterr().err
    assert "403" in err and "gradgate init --workflows" in err
    assert world.github.comments(REPO, NUMBER) == []


def test_with_checks_write_the_outcome_is_check_runs_completed_in_place(world: World) -> None:
    world.token = world.github.token(checks=True)  # the workflow grants `checks: write`
    world.push(EDITED)

    assert world.pull_request() == 1

    repo = world.github.repo(REPO)
    runs = repo.latest_check_runs(world.head)
    assert (
        runs["gradgate"].conclusion == "failure"
        and runs["gradgate/protected"].conclusion == "failure"
    )
    assert runs["gradgate/gradient"].conclusion == "skipped"
    assert all(r.status == "completed" for r in runs.values())
    assert len(repo.check_runs) == len(runs)  # the pending ones were completed, not added to
    assert world.github.requests("PATCH", "/check-runs/") and repo.statuses == []
    assert runs["gradgate"].external_id.startswith(f"gradgate:{world.head}:")
    assert "train.py:1" in (runs["gradgate"].summary or "")
    assert len(world.github.comments(REPO, NUMBER)) == 1
