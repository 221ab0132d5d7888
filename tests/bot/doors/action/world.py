"""A pull request world for `gradgate action` tests: a real git repo, the fake GitHub, and the
environment GitHub Actions would give the step, with real webhook payloads adapted to both."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from gradgate.bot.doors.cli import main

from tests.fakegithub import BOT, FakeGitHub, payloads
from tests.gitrepo import GitRepo

REPO = "acme/model"
NUMBER = 7
POLICY = """\
zones:
  - name: training
    paths: ["train.py"]
    checks: [protected]
"""
TRAIN = 'RUNS = "runs/v3"  # NO_REFAC\nEPOCHS = 3\n'


@dataclass
class World:
    repo: GitRepo
    github: FakeGitHub
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    token: str = ""
    runs: int = 0
    env: dict[str, str] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return self.repo.git("rev-parse", "main")

    @property
    def head(self) -> str:
        return self.repo.git("rev-parse", "pr")

    def push(self, text: str, message: str = "change") -> str:
        """A commit on the PR branch; the fake's PR follows it, as GitHub's would."""
        self.repo.write("train.py", text)
        sha = self.repo.commit(message)
        self.github.repo(REPO).pulls[NUMBER].head_sha = sha
        return sha

    def action(self, event: str, payload: dict[str, Any], *args: str) -> int:
        self.runs += 1
        path = payloads.write(self.tmp / f"event-{self.runs}.json", payload)
        summary = self.tmp / "summary.md"
        env = {
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(path),
            "GITHUB_TOKEN": self.token,
            "GITHUB_API_URL": self.github.url,
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": str(1000 + self.runs),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_WORKFLOW_REF": f"{REPO}/.github/workflows/gradgate.yml@refs/pull/7/merge",
            "GRADGATE_GITHUB_RETRIES": "8",
            "GRADGATE_GITHUB_BACKOFF_S": "0.001",
            "GRADGATE_GITHUB_WRITE_INTERVAL_S": "0",
            **self.env,
        }
        for key, value in env.items():
            self.monkeypatch.setenv(key, value)
        return main(["action", "--repo", str(self.repo.root), *args])

    def pull_request(self, action: str = "synchronize", *args: str) -> int:
        payload = payloads.pull_request(
            action,
            repo=REPO,
            number=NUMBER,
            head=self.head,
            base=self.base,
            author="alice",
            head_ref="pr",
        )
        return self.action("pull_request", payload, *args)

    def comment(self, body: str, *, author: str, action: str = "created", **kw: Any) -> int:
        made = self.github.add_comment(REPO, NUMBER, body, author=author)
        payload = payloads.issue_comment(
            action, repo=REPO, number=NUMBER, comment_id=made.id, body=body, author=author, **kw
        )
        return self.action("issue_comment", payload)

    def report_comments(self) -> list[str]:
        return [
            c.body
            for c in self.github.comments(REPO, NUMBER, by=BOT)
            if c.body.startswith("<!-- gradgate:report")
        ]

    def statuses(self, sha: str) -> dict[str, str]:
        return {c: s.state for c, s in self.github.repo(REPO).latest_statuses(sha).items()}


def make_world(
    repo: GitRepo, github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[World]:
    repo.write(".gradgate.yml", POLICY)
    repo.write("train.py", TRAIN)
    repo.commit("base")
    repo.branch("pr")
    repo.write("README.md", "hello\n")
    head = repo.commit("docs")
    github.open_pull(
        REPO, NUMBER, head=head, base=repo.git("rev-parse", "main"), author="alice", head_ref="pr"
    )
    github.repo(REPO).collaborators.update({"alice": "write", "olivia": "admin"})
    world = World(
        repo=repo, github=github, tmp=tmp_path, monkeypatch=monkeypatch, token=github.token()
    )
    yield world


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
