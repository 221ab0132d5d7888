"""The planner's diff, started early: it can ask whether git is done without waiting for it."""

from __future__ import annotations

import time

import pytest
from gradgate.bot.git.repository import GitRepository

from tests.gitrepo import GitRepo


@pytest.mark.timeout(60)
def test_a_started_diff_says_when_git_is_done(repo: GitRepo) -> None:
    repo.write("a.py", "a\n")
    base = repo.commit("base")
    repo.write("a.py", "b\n")
    repo.write("b.md", "b\n")
    head = repo.commit("head")
    with GitRepository(repo.root).changed_paths(base, head) as diff:
        while not diff.ready():  # git writes its few records and exits; asking does not wait
            time.sleep(0.01)
        assert diff.ready()
        assert diff() == (["a.py", "b.md"], 2)
