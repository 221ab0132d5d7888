"""What the App leaves on a commit when GitHub fails it (issue 18): statuses and check runs never
disagree, and no check run stays in progress for ever, whether its updates keep failing, its
create's answer was lost, or the worker that made it was killed."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from gradgate.bot.app.settings import AppSettings

from tests.bot.app.world import REPO, AppWorld, make_world
from tests.fakegithub import FakeGitHub
from tests.gitrepo import GitRepo


@pytest.fixture
def world(repo: GitRepo, github: FakeGitHub, settings: AppSettings) -> Iterator[AppWorld]:
    made = make_world(repo, github, settings)
    yield made
    made.stop()
    made.live.stop()


def test_when_check_run_updates_keep_failing_no_status_says_success(world: AppWorld) -> None:
    world.github.faults.only = re.compile(r"PATCH .*/check-runs/")
    world.github.faults.fail_next(10_000, status=502)
    world.deliver_push("opened")  # a clean PR: its report says success
    world.drain()
    statuses = world.github.repo(REPO).latest_statuses(world.head)
    assert statuses, "nothing says what happened"
    assert {s.state for s in statuses.values()} == {"error"}
    assert "gradgate" in statuses and "gradgate/protected" in statuses
    runs = world.check_runs(world.head)
    assert "success" not in runs.values()
