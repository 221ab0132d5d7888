"""`gradgate action` on issue_comment events: `/recheck`, end to end against the fake GitHub."""

from __future__ import annotations

import pytest

from tests.bot.doors.action.world import NUMBER, REPO, World
from tests.fakegithub import BOT
from tests.fakegithub.state import Run


@pytest.fixture
def run(world: World) -> Run:
    """The latest gradgate run for the PR's head: it failed."""
    world.github.add_run(
        REPO, workflow="gradgate.yml", head_sha="0" * 40, head_ref="pr"
    )  # older head
    return world.github.add_run(
        REPO, workflow="gradgate.yml", head_sha=world.head, head_ref="pr", conclusion="failure"
    )


def _reactions(world: World) -> list[tuple[str, str]]:
    return [(r.content, r.user) for r in world.github.repo(REPO).reactions]


def _replies(world: World) -> list[str]:
    return [c.body for c in world.github.comments(REPO, NUMBER, by=BOT)]


def test_recheck_from_an_admin_reacts_and_reruns_the_failed_jobs(world: World, run: Run) -> None:
    assert world.comment("Flaky runner.\n/recheck", author="olivia") == 0

    assert _reactions(world) == [("eyes", BOT)]
    assert run.reruns == ["failed"]
    assert _replies(world) == []


def test_recheck_all_reruns_everything(world: World, run: Run) -> None:
    world.comment("/recheck all", author="olivia")

    assert run.reruns == ["all"]


def test_the_pr_author_with_write_access_may_recheck(world: World, run: Run) -> None:
    world.comment("/recheck", author="alice")

    assert run.reruns == ["failed"]


def test_a_stranger_is_refused_once_politely(world: World, run: Run) -> None:
    world.github.user("stranger")

    world.comment("/recheck", author="stranger")
    world.comment("/recheck\nplease?", author="stranger")

    assert run.reruns == [] and _reactions(world) == []
    (reply,) = _replies(world)
    assert "@stranger" in reply and "only people with write access" in reply


def test_the_author_without_write_access_is_refused(world: World, run: Run) -> None:
    world.github.repo(REPO).collaborators["alice"] = "read"

    world.comment("/recheck", author="alice")

    assert run.reruns == []
    assert len(_replies(world)) == 1


@pytest.mark.parametrize(
    ("body", "kw"),
    [
        ("```\n/recheck\n```", {}),
        ("> /recheck", {}),
        ("please /recheck", {}),
        ("/recheck", {"action": "edited"}),
        ("/recheck", {"author_type": "Bot"}),
        ("/recheck", {"on_pull_request": False}),
    ],
    ids=["code-block", "quote", "not-own-line", "edited", "bot", "issue-not-pr"],
)
def test_recheck_is_ignored_where_it_does_not_count(
    world: World, run: Run, body: str, kw: dict[str, object]
) -> None:
    assert world.comment(body, author="olivia", **kw) == 0

    assert run.reruns == [] and _reactions(world) == [] and _replies(world) == []
    assert world.github.requests("POST") == []


def test_gradgate_own_comments_never_trigger_it(world: World, run: Run) -> None:
    world.comment("/recheck", author=BOT, author_type="Bot")

    assert run.reruns == [] and world.github.requests("GET", "/permission$") == []


def test_nothing_to_rerun_is_said_politely(world: World) -> None:
    world.comment("/recheck", author="olivia")

    (reply,) = _replies(world)
    assert "no gradgate run" in reply and world.head[:7] in reply


def test_a_run_still_in_progress_is_not_rerun(world: World, run: Run) -> None:
    run.status, run.conclusion = "in_progress", None

    world.comment("/recheck", author="olivia")

    assert run.reruns == [] and "still running" in _replies(world)[0]


def test_a_run_that_passed_has_no_failed_jobs_to_rerun(world: World, run: Run) -> None:
    run.conclusion = "success"

    world.comment("/recheck", author="olivia")

    assert run.reruns == [] and "/recheck all" in _replies(world)[0]
    world.comment("/recheck all", author="olivia")
    assert run.reruns == ["all"]


def test_recheck_runs_no_git_and_no_checks(
    world: World, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the issue_comment context must not run the checks")

    monkeypatch.setattr("gradgate.bot.doors.isolated.subprocess.run", refuse)
    monkeypatch.setattr("gradgate.bot.doors.action.stages.plan_request", refuse)
    world.repo.root.rename(world.tmp / "gone")  # no checkout at all

    assert world.comment("/recheck", author="olivia") == 0
    assert run.reruns == ["failed"]
