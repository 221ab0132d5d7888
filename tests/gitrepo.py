"""A real git repository in a temp dir, driven with the git CLI, for tests and benchmarks."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import CheckSettings
from gradgate.checks.context import CheckContext

_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": os.devnull,
}


class GitRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str) -> str:
        env = {**os.environ, **_ENV}
        done = subprocess.run(
            ["git", *args], cwd=self.root, env=env, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    def write(self, path: str, text: str | bytes) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")
        return target

    def remove(self, path: str) -> None:
        self.git("rm", "-q", "--", path)

    def move(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", "--", old, new)

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def branch(self, name: str, start: str = "HEAD") -> None:
        self.git("checkout", "-q", "-b", name, start)

    def checkout(self, name: str) -> None:
        self.git("checkout", "-q", name)

    def pull_request(
        self,
        base: Mapping[str, str | bytes],
        head: Mapping[str, str | bytes | None],
        *,
        moves: tuple[tuple[str, str], ...] = (),
        then: Callable[[], None] | None = None,
    ) -> tuple[str, str]:
        """A pull request, the one way tests build one: ``base`` committed on the current branch,
        then on a branch `pr` ``moves`` (old, new) applied, ``head`` written (None deletes a
        file) and ``then`` called, and committed. The base and head SHAs."""
        for path, text in base.items():
            self.write(path, text)
        base_sha = self.commit("base")
        self.branch("pr")
        for old, new in moves:
            self.move(old, new)
        for path, content in head.items():
            if content is None:
                self.remove(path)
            else:
                self.write(path, content)
        if then is not None:
            then()
        return base_sha, self.commit("pr")

    @contextmanager
    def pull_request_context(
        self,
        base: Mapping[str, str | bytes],
        head: Mapping[str, str | bytes | None],
        settings: CheckSettings,
        *,
        moves: tuple[tuple[str, str], ...] = (),
        then: Callable[[], None] | None = None,
        **fields: Any,
    ) -> Iterator[CheckContext]:
        """The pull request ``pull_request`` builds, as a check is handed it: its changes read by
        gradgate's own git reader (open while the block runs), ``settings``, and ``fields``, the
        context's other fields (zones, python...; ``changes=()`` for a check given none)."""
        base_sha, head_sha = self.pull_request(base, head, moves=moves, then=then)
        with GitRepository(self.root) as git:
            if "changes" not in fields:
                fields["changes"] = git.changes(base_sha, head_sha)
            yield CheckContext(
                base_sha=base_sha, head_sha=head_sha, source=git, settings=settings, **fields
            )
