"""The App's test rig: real uvicorn on loopback, real signed deliveries, a real redis-server."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.server import create_app
from gradgate.bot.app.settings import AppSettings
from gradgate.bot.app.signature import sign

from tests.fakegithub import FakeGitHub
from tests.gitrepo import GitRepo

if TYPE_CHECKING:  # world.py builds on this file's rig: imported where the fixtures run
    from tests.bot.app.world import AppWorld

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "github"
SECRET = b"test-webhook-secret-0123456789"


def payload(name: str) -> dict[str, Any]:
    """A real webhook payload from tests/fixtures/github/webhooks, e.g. "pull_request/opened"."""
    path = (
        FIXTURES
        / "webhooks"
        / f"{name.rstrip('/')}{'/' if name.endswith('/') else '.'}payload.json"
    )
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def on_pull_request(comment: dict[str, Any], number: int = 2) -> dict[str, Any]:
    """The issue_comment fixture is on an issue; GitHub marks a PR's issue with `pull_request`."""
    issue = dict(comment["issue"], number=number)
    issue["pull_request"] = {"url": f"https://api.github.com/repos/x/y/pulls/{number}"}
    return dict(comment, issue=issue)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LiveServer:
    def __init__(self, queues: Queues, **options: Any) -> None:
        """``options``: create_app's (its bounds on reading bodies)."""
        self.queues = queues
        self.port = free_port()
        config = uvicorn.Config(
            create_app(queues, **options),
            host="127.0.0.1",
            port=self.port,
            log_config=None,
            lifespan="off",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"http://127.0.0.1:{self.port}"
        self.client = httpx.Client(base_url=self.url, timeout=10)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 60  # a loaded machine starts things late
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.client.close()
        self.server.should_exit = True
        self.thread.join(10)

    def deliver(
        self,
        event: str,
        body: dict[str, Any] | bytes,
        *,
        delivery: str | None = None,
        secret: bytes = SECRET,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent = {
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(secret, raw),
            "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/test",
        }
        return self.client.post("/webhook", content=raw, headers=sent | (headers or {}))


@pytest.fixture
def settings(tmp_path: Path, request: pytest.FixtureRequest) -> AppSettings:
    """The App's settings. A test changes some with
    `@pytest.mark.parametrize("settings", [{"lease_s": 1.0}], indirect=True)`; a `redis_url` of
    True stands for the suite's real redis-server, emptied for the test."""
    changes = dict(getattr(request, "param", {}))
    if changes.get("redis_url") is True:
        import redis

        changes["redis_url"] = request.getfixturevalue("redis_url")
        redis.Redis.from_url(changes["redis_url"]).flushdb()
    made = AppSettings(data_dir=tmp_path / "data", webhook_secret=SECRET, lease_s=2.0)
    return dataclasses.replace(made, **changes)


@pytest.fixture
def live(settings: AppSettings) -> Iterator[LiveServer]:
    server = LiveServer(Queues(settings, serving=True))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server of our own on a free port. Without one installed the tests that need
    it skip, except where scripts/test.sh requires it (CI): there they fail."""
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("GRADGATE_TEST_REDIS") == "required":
            pytest.fail("redis-server is not installed, and GRADGATE_TEST_REDIS=required")
        pytest.skip("redis-server is not installed")
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(workdir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60  # a loaded machine starts things late
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            break
        assert time.monotonic() < deadline and proc.poll() is None, "redis-server did not start"
        time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(10)


Deliver = Callable[..., httpx.Response]


@pytest.fixture
def policy() -> str:
    """The base's `.gradgate.yml` in ``world``: world.py's POLICY, unless a test file overrides
    this fixture (or a test parametrises ``policy``)."""
    from tests.bot.app.world import POLICY

    return POLICY


@pytest.fixture
def world(
    repo: GitRepo, github: FakeGitHub, settings: AppSettings, policy: str
) -> Iterator[AppWorld]:
    """A pull request on the fake GitHub and the App serving it (tests/bot/app/world.py), its
    workers and server stopped after the test. A test file that needs another App set-up
    overrides ``settings``; another config, ``policy``."""
    from tests.bot.app.world import make_world

    made = make_world(repo, github, settings, policy=policy)
    yield made
    made.stop()
    made.live.stop()


@pytest.fixture
def fork_world(world: AppWorld) -> AppWorld:
    """``world`` whose pull request comes from a fork's author (mallory, no access)."""
    from tests.bot.app.world import NUMBER, REPO

    world.github.repo(REPO).pulls[NUMBER].author = "mallory"
    return world
