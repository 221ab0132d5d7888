"""A runner to attack, for the sandbox tests (`bubblewrap`, `no_bwrap`: tests/conftest.py)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gradgate.bot.git.repository import GitRepository

from tests.checks.sandbox.hostile import MARK, Run, as_gradgate
from tests.gitrepo import GitRepo

TARGETS = Path(__file__).parent / "targets"


@dataclass
class Victim:
    """A CI runner's state: a repository whose git config holds actions/checkout's token, a
    HOME with git credentials and a file to lose, and a checkout of the PR head to run."""

    repository: Path
    checkout: Path
    home: Path
    tmp: Path  # gradgate's TMPDIR: its run folders go here, and must not stay

    def run(self, target: str, sandbox: str, **options: Any) -> Run:
        return as_gradgate(
            target, root=self.checkout, home=self.home, tmp=self.tmp, sandbox=sandbox, **options
        )

    @property
    def paths(self) -> dict[str, str]:
        return {
            "home": str(self.home),
            "source": str(self.checkout),
            "repository": str(self.repository),
        }


@pytest.fixture
def victim(make_repo: Callable[..., GitRepo], tmp_path: Path) -> Iterator[Victim]:
    repo = make_repo("source")
    shutil.copytree(TARGETS / "userpkg", repo.root / "userpkg")
    repo.write("model.py", "WIDTH = 8\n")
    sha = repo.commit("a PR head")
    header = f"AUTHORIZATION: basic {MARK}-checkout-token"
    repo.git("config", "http.https://github.com/.extraheader", header)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".git-credentials").write_text(f"https://x-access-token:{MARK}-cred@github.com\n")
    (home / "precious.txt").write_text("the user's work\n")
    tmp = tmp_path / "gradgate-tmp"
    tmp.mkdir()
    with GitRepository(repo.root) as git, git.checkout(sha) as checkout:
        yield Victim(repo.root, checkout, home, tmp)
