"""Mirrors and job worktrees: refs/pull/N/head and the base fetched, the token only in git's env."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from gradgate.bot.git.mirror import Mirrors, auth_env

from tests.gitrepo import GitRepo

TOKEN = "ghs_secretinstallationtoken1234567890"


@pytest.fixture
def origin(repo: GitRepo) -> tuple[GitRepo, str]:
    """A "GitHub" repository with `main` and a PR head under refs/pull/5/head."""
    repo.write("train.py", "EPOCHS = 3\n")
    repo.commit("base")
    repo.branch("feature")
    repo.write("train.py", "EPOCHS = 5\n")
    head = repo.commit("more epochs")
    repo.git("update-ref", "refs/pull/5/head", head)
    repo.checkout("main")
    return repo, head


@pytest.fixture
def spy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` first on PATH that logs its argv and its auth header, then runs the real git."""
    log = tmp_path / "git-calls.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = next(
        Path(d) / "git" for d in os.environ["PATH"].split(os.pathsep) if (Path(d) / "git").exists()
    )
    wrapper = bin_dir / "git"
    wrapper.write_text(
        f'#!/bin/sh\nprintf "argv: %s\\nheader: %s\\n" "$*" "$GIT_CONFIG_VALUE_0" >> {log}\n'
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def test_a_job_gets_a_worktree_of_the_pr_head_and_the_base_and_leaves_nothing(
    origin: tuple[GitRepo, str], tmp_path: Path, spy: Path
) -> None:
    remote, head = origin
    mirrors = Mirrors(tmp_path / "data", budget_mb=100)
    refs = ["refs/pull/5/head:refs/pull/5/head", "refs/heads/main:refs/heads/main"]
    with mirrors.checkout(
        "o/r", str(remote.root), refs, token=TOKEN, sha=head, job="delivery-1"
    ) as tree:
        assert (tree / ".git").is_file()  # a worktree of the mirror
        mirror = GitRepo.__new__(GitRepo)
        mirror.root = mirrors.path("o/r")
        assert mirror.git("rev-parse", "refs/pull/5/head") == head
        assert mirror.git("rev-parse", "refs/heads/main") == remote.git("rev-parse", "main")
    assert not tree.exists()
    assert "delivery-1" not in mirror.git("worktree", "list")
    # The token was sent as a header through git's environment, never on a command line...
    calls = spy.read_text()
    assert "header: Authorization: Basic" in calls and TOKEN not in calls
    # ...and is nowhere on disk.
    for path in (tmp_path / "data").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path


def test_auth_env_carries_the_token_only_base64_encoded_in_an_extra_header() -> None:
    env = auth_env(TOKEN)
    assert env["GIT_CONFIG_KEY_0"] == "http.extraHeader"
    assert TOKEN not in env["GIT_CONFIG_VALUE_0"]
    assert auth_env(None) == {}


def test_trim_removes_least_recently_used_mirrors_but_never_one_in_use(
    origin: tuple[GitRepo, str], tmp_path: Path
) -> None:
    remote, head = origin
    mirrors = Mirrors(tmp_path / "data", budget_mb=0)  # anything is over budget
    refs = ["refs/pull/5/head:refs/pull/5/head"]
    with mirrors.checkout("o/old", str(remote.root), refs, token=None, sha=head, job="j1"):
        pass
    with mirrors.checkout("o/busy", str(remote.root), refs, token=None, sha=head, job="j2"):
        removed = mirrors.trim()
        assert mirrors.path("o/old") in removed
        assert mirrors.path("o/busy").exists()
    assert mirrors.trim() == [mirrors.path("o/busy")]
    assert mirrors.size() == 0


def test_sweep_removes_worktrees_a_killed_worker_left(tmp_path: Path) -> None:
    mirrors = Mirrors(tmp_path, budget_mb=10)
    for name in ("alive", "dead"):
        (mirrors.jobs / name).mkdir(parents=True)
    assert mirrors.sweep({"alive"}) == [mirrors.jobs / "dead"]
    assert (mirrors.jobs / "alive").exists()


def test_lock_files_a_git_killed_mid_fetch_left_do_not_block_the_next_job(
    origin: tuple[GitRepo, str], tmp_path: Path
) -> None:
    remote, head = origin
    mirrors = Mirrors(tmp_path / "data", budget_mb=100)
    refs = ["refs/pull/5/head:refs/pull/5/head"]
    with mirrors.checkout("o/r", str(remote.root), refs, token=None, sha=head, job="j1"):
        pass
    # What `kill -9` of a worker in the middle of `git fetch` leaves behind.
    (mirrors.path("o/r") / "refs" / "pull" / "5" / "head.lock").write_text("")
    (mirrors.path("o/r") / "shallow.lock").write_text("")
    remote.git("update-ref", "refs/pull/5/head", remote.git("rev-parse", "main"))

    with mirrors.checkout(
        "o/r", str(remote.root), refs, token=None, sha=remote.git("rev-parse", "main"), job="j2"
    ) as tree:
        assert tree.exists()
