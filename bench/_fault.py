"""The fault run of bench/webhooks.py: the whole App, and a worker killed with -9 mid-job.

"GitHub" is a real git repository (the clone URL) and the test suite's fake GitHub (the API,
with the App installed). `gradgate serve` and `gradgate worker` run as subprocesses. Each of
PRS pull requests is opened, and every other one pushed to again (its first job is superseded).
The worker is killed with -9 twice: while a job runs its checks, then while one publishes; each
time a new worker is started. Counted: jobs that ran to their end, and each PR's report
comments (target: all jobs, exactly one comment per PR, each for the PR's newest head).
"""

from __future__ import annotations

import copy
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.fakegithub import FakeGitHub, payloads
from tests.gitrepo import GitRepo

REPO, INSTALLATION, APP_ID, PRS = "acme/model", 31, "4242", 6
SECRET = "bench-webhook-secret-0123456789"
POLICY = 'zones:\n  - name: training\n    paths: ["train.py"]\n    checks: [protected]\n'
TRAIN = 'RUNS = "runs/v3"  # NO_REFAC\nEPOCHS = 3\n'


def _origin(root: Path) -> GitRepo:
    origin = GitRepo(root)
    origin.write(".gradgate.yml", POLICY)
    origin.write("train.py", TRAIN)
    origin.commit("base")
    return origin


def _push(origin: GitRepo, fake: FakeGitHub, number: int, text: str) -> str:
    origin.checkout(f"pr{number}")
    origin.write("train.py", text)
    sha = str(origin.commit(f"PR {number}"))
    origin.git("update-ref", f"refs/pull/{number}/head", sha)
    fake.repo(REPO).pulls[number].head_sha = sha
    return sha


def _delivery(origin: GitRepo, number: int, action: str, head: str) -> dict[str, Any]:
    made = payloads.pull_request(
        action, repo=REPO, number=number, head=head, base=origin.git("rev-parse", "main"),
        author="alice", head_ref=f"pr{number}",
    )  # fmt: skip
    payload: dict[str, Any] = copy.deepcopy(made)
    payload["installation"] = {"id": INSTALLATION}
    payload["repository"]["clone_url"] = str(origin.root)
    return payload


def fault_run() -> list[str]:
    from gradgate.bot.app.queue import Queues
    from gradgate.bot.app.settings import AppSettings
    from gradgate.bot.app.signature import sign

    from bench.webhooks import _port, _wait_for, ok

    fake = FakeGitHub().start()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        origin = _origin(Path(tmp) / "origin")
        pem = fake.app(APP_ID, slug="gradgate")
        fake.install(INSTALLATION, REPO)
        fake.repo(REPO).collaborators["alice"] = "write"
        base = origin.git("rev-parse", "main")
        for number in range(1, PRS + 1):
            origin.branch(f"pr{number}", "main")
            fake.open_pull(REPO, number, head=base, base=base, author="alice")
        env = os.environ | {
            "GRADGATE_WEBHOOK_SECRET": SECRET, "GRADGATE_APP_ID": APP_ID,
            "GRADGATE_APP_PRIVATE_KEY": pem, "GITHUB_API_URL": fake.url,
            "GRADGATE_LEASE_S": "1", "GRADGATE_GITHUB_BACKOFF_S": "0.001",
            "GRADGATE_GITHUB_WRITE_INTERVAL_S": "0",
        }  # fmt: skip
        port = _port()

        def start(*command: str) -> subprocess.Popen[bytes]:
            gradgate = [sys.executable, "-m", "gradgate.bot", *command, "--data-dir", str(data)]
            return subprocess.Popen(gradgate, env=env, stderr=subprocess.DEVNULL)

        server = start("serve", "--port", str(port))
        workers = [start("worker")]
        kills: list[str] = []
        moments = {"/check-runs": "while running checks", "/comments": "while publishing"}

        def kill(method: str, path: str) -> None:
            moment = list(moments)[len(kills)] if len(kills) < len(moments) else None
            if method == "POST" and moment and path.endswith(moment):
                os.kill(workers[-1].pid, signal.SIGKILL)
                kills.append(moments[moment])

        fake.hooks.append(kill)
        accepted = 0
        try:
            _wait_for(f"http://127.0.0.1:{port}")
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
                plan = [(n, "opened", TRAIN) for n in range(1, PRS + 1)]
                plan += [(n, "synchronize", TRAIN.replace("3\n", "4\n")) for n in range(1, PRS, 2)]
                for number, action, text in plan:
                    head = _push(origin, fake, number, text + f"# {action}\n")
                    raw = httpx.Request("POST", "/", json=_delivery(origin, number, action, head))
                    body = raw.read()
                    headers = {"X-GitHub-Event": "pull_request",
                               "X-GitHub-Delivery": f"bench-{number}-{action}",
                               "X-Hub-Signature-256": sign(SECRET.encode(), body),
                               "Content-Type": "application/json"}  # fmt: skip
                    answer = client.post("/webhook", content=body, headers=headers)
                    accepted += answer.status_code == 202
            state = Queues(AppSettings(data_dir=data)).state
            deadline = time.monotonic() + 180
            while any(True for _ in state.ledger.entries()) and time.monotonic() < deadline:
                if workers[-1].poll() is not None:  # killed: start another, as systemd would
                    workers.append(start("worker"))
                time.sleep(0.1)
            left = sum(1 for _ in state.ledger.entries())
        finally:
            for proc in [server, *workers]:
                if proc.poll() is None:
                    proc.terminate()
                    proc.wait(30)
            fake.stop()
        comments, current = [], 0
        for number in range(1, PRS + 1):
            mine = [c for c in fake.comments(REPO, number, by="gradgate[bot]")
                    if c.body.startswith("<!-- gradgate:report")]  # fmt: skip
            comments.append(len(mine))
            head = fake.repo(REPO).pulls[number].head_sha
            current += sum(head in c.body for c in mine)
    done = accepted - left
    print(f"fault run: {len(plan)} deliveries, {accepted} accepted; worker killed -9 "
          f"{', then '.join(kills) or 'never'}; {done} jobs ran to their end, {left} left; "
          f"report comments per PR {comments}, {current} for the PR's newest head; "
          f"{len(fake.violations)} answers off GitHub's OpenAPI")  # fmt: skip
    return [
        f"fault_jobs_completed_ratio = {done / len(plan):.2f} (target >= 1.0) "
        f"{ok(done == len(plan))}",
        f"fault_min_comments_per_pr = {min(comments)} (target >= 1) {ok(min(comments) >= 1)}",
        f"fault_max_comments_per_pr = {max(comments)} (target <= 1) {ok(max(comments) <= 1)}",
        f"fault_kills = {len(kills)} (target >= 2) {ok(len(kills) >= 2)}",
    ]
