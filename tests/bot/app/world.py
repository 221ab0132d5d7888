"""A pull request world for the App's end-to-end tests: "GitHub" is a real git repository (the
clone URL) and the fake GitHub (the API, with the App installed); the App is a real uvicorn
server on loopback and a worker, in this process or as `gradgate worker` subprocesses."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
from gradgate.bot.app.github import app_forge
from gradgate.bot.app.jobs import Queue
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.settings import AppSettings
from gradgate.bot.app.work import Worker
from gradgate.bot.github.client import RetryPolicy

from tests.bot.app.conftest import SECRET, LiveServer
from tests.bot.app.conftest import payload as FIXTURE
from tests.fakegithub import FakeGitHub, payloads
from tests.gitrepo import GitRepo

REPO = "acme/model"
NUMBER = 7
INSTALLATION = 31
APP_ID = "4242"
BOT = "gradgate[bot]"
POLICY = """\
zones:
  - name: training
    paths: ["train.py"]
    checks: [protected]
  - name: model
    paths: ["model.py"]
    checks: [gradient]
"""
TRAIN = 'RUNS = "runs/v3"  # NO_REFAC\nEPOCHS = 3\n'
EDITED = TRAIN.replace("runs/v3", "runs/v4")
FAST = RetryPolicy(total=4, backoff_s=0.001, request_interval_s=0, write_interval_s=0)
SUBPROCESS_ENV = {  # what `gradgate worker` needs beyond the App's id, key and API URL
    "GRADGATE_GITHUB_RETRIES": "4",
    "GRADGATE_GITHUB_BACKOFF_S": "0.001",
    "GRADGATE_GITHUB_WRITE_INTERVAL_S": "0",
}


@dataclass
class AppWorld:
    origin: GitRepo
    github: FakeGitHub
    settings: AppSettings
    live: LiveServer
    pem: str
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _worker: Worker | None = None
    # GitHub's clock, in seconds: each push's `updated_at` and each comment's `created_at` are
    # read from it, and each event moves it on by a second; ``wait`` moves it further.
    now: float = 1_767_225_600.0  # 2026-01-01

    def wait(self, seconds: float) -> None:
        self.now += seconds

    def _tick(self) -> str:
        at = datetime.fromtimestamp(self.now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.now += 1
        return at

    # -- GitHub's side -------------------------------------------------------------------------

    @property
    def head(self) -> str:
        return self.origin.git("rev-parse", "pr")

    @property
    def base(self) -> str:
        return self.origin.git("rev-parse", "main")

    def push(self, text: str, *, path: str = "train.py", message: str = "change") -> str:
        """A commit on the PR branch; refs/pull/N/head and the fake's PR follow, as on GitHub."""
        self.origin.checkout("pr")
        self.origin.write(path, text)
        sha = self.origin.commit(message)
        self.origin.git("update-ref", f"refs/pull/{NUMBER}/head", sha)
        self.github.repo(REPO).pulls[NUMBER].head_sha = sha
        return sha

    def deliver_push(self, action: str = "synchronize", **kw: Any) -> httpx.Response:
        author = kw.pop("author", "alice")
        return self.live.deliver("pull_request", self.push_payload(action, author=author), **kw)

    def push_payload(
        self, action: str = "synchronize", *, author: str = "alice", number: int = NUMBER
    ) -> dict[str, Any]:
        """PR ``number``'s delivery (the world's own by default), naming its head and base as
        the fake GitHub has them now."""
        pull = self.github.repo(REPO).pulls[number]
        head, base = (self.head, self.base) if number == NUMBER else (pull.head_sha, pull.base_sha)
        payload = payloads.pull_request(
            action, repo=REPO, number=number, head=head, base=base, author=author,
            head_ref=pull.head_ref, base_ref=pull.base_ref,
        )  # fmt: skip
        payload["pull_request"]["updated_at"] = self._tick()
        return self._for_app(payload)

    def comment(self, body: str, *, author: str, **kw: Any) -> httpx.Response:
        return self.live.deliver("issue_comment", self.comment_payload(body, author=author), **kw)

    def comment_payload(self, body: str, *, author: str) -> dict[str, Any]:
        """A new comment on the PR, as GitHub records it and as its delivery carries it."""
        made = self.github.add_comment(REPO, NUMBER, body, author=author)
        payload = payloads.issue_comment(
            "created", repo=REPO, number=NUMBER, comment_id=made.id, body=body, author=author
        )
        payload["comment"]["created_at"] = self._tick()
        return self._for_app(payload)

    def label(self, name: str, *, by: str) -> httpx.Response:
        """``by`` puts the label ``name`` on the PR (GitHub's `pull_request` `labeled`)."""
        return self.live.deliver("pull_request", self.label_payload(name, by=by))

    def label_payload(self, name: str, *, by: str) -> dict[str, Any]:
        """The `labeled` delivery's payload, naming the head the PR has now."""
        payload = self.push_payload("labeled", author=self.github.repo(REPO).pulls[NUMBER].author)
        payload["label"] = {"id": 1, "name": name, "color": "ededed", "default": False}
        payload["sender"]["login"] = by
        return payload

    def rerun(self, event: str, *, by: str, sha: str | None = None) -> httpx.Response:
        """``by`` presses Re-run on a check run (`check_run`) or Re-run all (`check_suite`): the
        real payloads, pointed at this PR's head, with its pull request listed or not (a fork's
        suite lists none)."""
        payload = copy.deepcopy(FIXTURE(f"{event}/rerequested"))
        suite = payload["check_run"]["check_suite"] if event == "check_run" else payload[event]
        suite["head_sha"] = sha or self.head
        suite["pull_requests"] = []
        if event == "check_run":
            payload["check_run"]["head_sha"] = sha or self.head
            payload["check_run"]["name"] = "gradgate/protected"
        payload["repository"]["full_name"] = REPO
        payload["sender"].update(login=by, type="User")
        return self.live.deliver(event, self._for_app(payload))

    def _for_app(self, payload: dict[str, Any]) -> dict[str, Any]:
        """What GitHub adds for an App: its installation; the clone URL is the origin's path."""
        payload = copy.deepcopy(payload)
        payload["installation"] = {"id": INSTALLATION, "node_id": "MDIzOkludGVncmF0aW9u"}
        payload["repository"]["clone_url"] = str(self.origin.root)
        return payload

    def report_comments(self) -> list[str]:
        return [
            c.body
            for c in self.github.comments(REPO, NUMBER, by=BOT)
            if c.body.startswith("<!-- gradgate:report")
        ]

    def check_runs(self, sha: str) -> dict[str, str]:
        """What GitHub shows for ``sha``: each check run's conclusion, or its status."""
        runs = self.github.repo(REPO).latest_check_runs(sha)
        return {name: r.conclusion or r.status for name, r in runs.items()}

    # -- the App's side ------------------------------------------------------------------------

    @property
    def queues(self) -> Queues:
        return self.live.queues

    def worker(self) -> Worker:
        if self._worker is None:
            self._worker = Worker(self.queues, app_forge(self.settings, retry=FAST))
        return self._worker

    def drain(self, queue: Queue = Queue.CPU, worker: Worker | None = None) -> int:
        """Run what is queued, in this process, as a huey consumer would; how many tasks ran."""
        huey, ran = self.queues.hueys[queue], 0
        while (task := huey.dequeue()) is not None:
            (worker or self.worker())(task.args[0])
            ran += 1
        return ran

    def start_worker(self, *args: str) -> subprocess.Popen[bytes]:
        """`gradgate worker` as a subprocess, with the App's credentials in its environment."""
        env = os.environ | SUBPROCESS_ENV | {
            "GRADGATE_APP_ID": APP_ID,
            "GRADGATE_APP_PRIVATE_KEY": self.pem,
            "GITHUB_API_URL": self.github.url,
            "GRADGATE_LEASE_S": str(self.settings.lease_s),
        }  # fmt: skip
        if self.settings.redis_url:
            env["GRADGATE_REDIS_URL"] = self.settings.redis_url
        command = [sys.executable, "-m", "gradgate.bot", "worker",
                   "--data-dir", str(self.settings.data_dir), *args]  # fmt: skip
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        log = (self.settings.data_dir / f"worker-{len(self.workers)}.log").open("wb")
        proc = subprocess.Popen(command, env=env, stderr=log)
        self.workers.append(proc)
        return proc

    def wait_until(self, done: Callable[[], bool], *, timeout_s: float = 240) -> None:
        # A job on a loaded 2-core machine (a git fetch, a check child) can take over a minute;
        # the test's own limit (pytest-timeout, 300 s) stays the last word.
        deadline = time.monotonic() + timeout_s
        while not done():
            assert time.monotonic() < deadline, "timed out"
            assert all(p.poll() is None for p in self.workers), "a worker exited"
            time.sleep(0.05)

    def idle(self) -> bool:
        """Nothing queued and nothing in the ledger: every job has run to its end."""
        return not any(True for _ in self.queues.state.ledger.entries())

    def stop(self) -> None:
        for proc in self.workers:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.workers:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def make_world(
    origin: GitRepo, github: FakeGitHub, settings: AppSettings, *, policy: str = POLICY
) -> AppWorld:
    origin.write(".gradgate.yml", policy)
    origin.write("train.py", TRAIN)
    origin.write("model.py", "WIDTH = 8\n")
    origin.commit("base")
    origin.branch("pr")
    origin.write("README.md", "hello\n")
    head = origin.commit("docs")
    origin.git("update-ref", f"refs/pull/{NUMBER}/head", head)
    origin.checkout("main")
    pem = github.app(APP_ID, slug="gradgate")
    github.install(INSTALLATION, REPO)
    github.open_pull(REPO, NUMBER, head=head, base=origin.git("rev-parse", "main"),
                     author="alice", head_ref="pr")  # fmt: skip
    github.repo(REPO).collaborators.update({"alice": "write", "olivia": "admin"})
    for login in ("alice", "olivia", "mallory"):  # mallory: no access
        github.user(login)
    settings = AppSettings(
        data_dir=settings.data_dir,
        redis_url=settings.redis_url,
        webhook_secret=SECRET,
        app_id=APP_ID,
        private_key=pem,
        api_url=github.url,
        lease_s=settings.lease_s,
        docs_url=settings.docs_url,
    )
    live = LiveServer(Queues(settings, serving=True))
    live.start()
    return AppWorld(origin=origin, github=github, settings=settings, live=live, pem=pem)


def fork_push(world: AppWorld, width: int) -> str:
    """The fork's author pushes a new head to the pull request (model.py's WIDTH changed)."""
    sha = world.push(f"WIDTH = {width}\n", path="model.py")
    assert world.deliver_push(author="mallory").status_code == 202
    return sha
