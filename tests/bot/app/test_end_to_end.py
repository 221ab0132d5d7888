"""The App end to end: signed deliveries to a real server, a worker that fetches a real git
repository with an installation token, runs the checks in a child without credentials, and
publishes through PyGithub to the fake GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradgate.bot.github.sticky import Stamp

from tests.bot.app.world import BOT, EDITED, NUMBER, REPO, TRAIN, AppWorld

CHECKS = ("gradgate", "gradgate/protected", "gradgate/gradient")


def test_open_push_push_leaves_exactly_one_comment_and_final_check_runs(world: AppWorld) -> None:
    assert world.deliver_push("opened").status_code == 202
    assert world.drain() == 1
    [first] = world.report_comments()
    assert "gradgate passed" in first
    assert world.check_runs(world.head)["gradgate"] == "success"
    assert world.github.requests("PATCH", "/check-runs/"), "the in-progress runs were completed"

    world.push(EDITED, message="edit a protected line")  # pass -> fail: recreated, people hear
    world.deliver_push()
    world.drain()
    [second] = world.report_comments()
    assert "gradgate failed" in second and "train.py:1" in second
    assert world.check_runs(world.head)["gradgate/protected"] == "failure"

    world.push(TRAIN, message="put it back")  # fail -> pass: the same comment, edited
    world.deliver_push()
    world.drain()
    comments = world.github.comments(REPO, NUMBER, by=BOT)
    assert len(comments) == 1 and "gradgate passed" in comments[0].body
    stamp = Stamp.read(comments[0].body)
    assert stamp is not None and (stamp.head, stamp.verdict) == (world.head, "success")
    assert {world.check_runs(world.head)[c] for c in CHECKS} == {"success", "skipped"}


def test_a_newer_push_cancels_the_queued_job_for_the_older_head(world: AppWorld) -> None:
    older = world.push(EDITED)
    world.deliver_push()
    newer = world.push(TRAIN)
    world.deliver_push()

    assert world.drain() == 2
    [comment] = world.report_comments()
    stamp = Stamp.read(comment)
    assert stamp is not None and stamp.head == newer
    assert world.check_runs(older) == {}  # the older job stopped before it reported anything
    assert world.github.repo(REPO).latest_statuses(older) == {}


def test_a_push_while_a_job_runs_stops_it_and_concludes_its_old_head_as_superseded(
    world: AppWorld,
) -> None:
    older = world.push(EDITED)
    world.deliver_push()
    pushed: list[str] = []

    def push_meanwhile(method: str, path: str) -> None:
        if method == "POST" and path.endswith("/check-runs") and not pushed:  # the job runs
            pushed.append(world.push(TRAIN))
            world.deliver_push()

    world.github.hooks.append(push_meanwhile)
    assert world.drain() == 2
    [newer] = pushed
    [comment] = world.report_comments()
    assert len(world.github.comments(REPO, NUMBER, by=BOT)) == 1
    stamp = Stamp.read(comment)
    assert stamp is not None and stamp.head == newer != older
    assert world.check_runs(newer)["gradgate"] == "success"
    # The older head's checks were in progress when the push came: cancelled there, saying
    # which push, never left spinning; the checks its plan skipped stay skipped.
    old_runs = world.github.repo(REPO).latest_check_runs(older)
    assert {n: r.conclusion for n, r in old_runs.items() if r.conclusion != "skipped"} == {
        "gradgate": "cancelled",
        "gradgate/protected": "cancelled",
    }
    assert {r.status for r in old_runs.values()} == {"completed"}
    assert old_runs["gradgate"].title == f"superseded by a newer push ({newer[:7]})"
    assert not any(
        "superseded" in (r.title or "")
        for r in world.github.repo(REPO).latest_check_runs(newer).values()
    )
    assert world.github.repo(REPO).statuses == []  # an App reports check runs only


@pytest.mark.parametrize("settings", [{"lease_s": 3600}], indirect=True, ids=["long-lease"])
def test_a_push_before_the_plan_is_marked_leaves_nothing_on_the_old_head(world: AppWorld) -> None:
    # A lease far longer than the test: no heartbeat stops the job first, so it is the job
    # that learns of the push when its plan comes, and marks nothing.
    older = world.push(EDITED)
    world.deliver_push()
    pushed: list[str] = []

    def push_meanwhile(method: str, path: str) -> None:
        if "/collaborators/" in path and not pushed:  # the job decides: nothing published
            pushed.append(world.push(TRAIN))
            world.deliver_push()

    world.github.hooks.append(push_meanwhile)
    assert world.drain() == 2
    [newer] = pushed
    [comment] = world.report_comments()
    stamp = Stamp.read(comment)
    assert stamp is not None and stamp.head == newer
    assert [r for r in world.github.repo(REPO).check_runs.values() if r.sha == older] == []
    assert world.github.repo(REPO).latest_statuses(older) == {}
    assert world.check_runs(newer)["gradgate"] == "success"


def test_code_from_an_untrusted_author_waits_for_ok_to_test_bound_to_the_head(
    world: AppWorld,
) -> None:
    world.github.repo(REPO).pulls[NUMBER].author = "mallory"
    world.push("WIDTH = 16\n", path="model.py")
    world.deliver_push(author="mallory")
    world.drain()
    [comment] = world.report_comments()
    assert "/ok-to-test" in comment
    runs = world.check_runs(world.head)
    assert (runs["gradgate/protected"], runs["gradgate/gradient"]) == ("success", "in_progress")
    assert runs["gradgate"] == "in_progress"  # pending, never a pass

    world.comment("/ok-to-test", author="mallory")  # no write access: refused, politely, once
    world.comment("/ok-to-test", author="mallory")
    world.drain()
    replies = [c for c in world.github.comments(REPO, NUMBER, by=BOT) if "ok-to-test" in c.body]
    assert len(replies) == 2  # the report, and one reply
    assert world.check_runs(world.head)["gradgate/gradient"] == "in_progress"

    world.wait(600)  # trust.confirm_s after the push: a bare /ok-to-test approves the head
    approval = world.comment("/ok-to-test", author="olivia")
    assert approval.status_code == 202
    world.drain()
    assert world.check_runs(world.head)["gradgate/gradient"] != "in_progress"  # it ran
    assert [r.content for r in world.github.repo(REPO).reactions] == ["eyes"]

    world.push("WIDTH = 32\n", path="model.py")  # the approval was for the previous head
    world.deliver_push(author="mallory")
    world.drain()
    assert world.check_runs(world.head)["gradgate/gradient"] == "in_progress"


def test_recheck_needs_write_access_and_counts_only_on_its_own_line(world: AppWorld) -> None:
    world.push(EDITED)
    world.deliver_push()
    world.drain()
    ran = len(world.github.requests("POST", "/check-runs$"))

    world.comment("> /recheck", author="olivia")  # quoted: nothing
    world.comment("/recheck", author="mallory")  # no write access: one reply
    world.comment("/recheck", author="mallory")
    world.drain()
    assert len(world.github.requests("POST", "/check-runs$")) == ran
    refusals = [c for c in world.github.comments(REPO, NUMBER, by=BOT) if "write access" in c.body]
    assert len(refusals) == 1

    world.comment("/recheck", author="olivia")
    world.drain()
    assert len(world.github.requests("POST", "/check-runs$")) > ran  # re-ran and reported
    assert [r.content for r in world.github.repo(REPO).reactions] == ["eyes"]
    assert len(world.report_comments()) == 1


def test_a_delivery_accepted_before_the_server_is_killed_is_not_lost(
    world: AppWorld, tmp_path: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys

    from tests.bot.app.conftest import free_port

    port = free_port()
    env = os.environ | {"GRADGATE_WEBHOOK_SECRET": world.settings.webhook_secret.decode()}
    server = subprocess.Popen(
        [sys.executable, "-m", "gradgate.bot", "serve", "--port", str(port),
         "--data-dir", str(world.settings.data_dir)],
        env=env, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        world.live.client.base_url = f"http://127.0.0.1:{port}"  # type: ignore[assignment]
        world.wait_until(lambda: _answers(world))
        assert world.deliver_push("opened").status_code == 202
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
    assert world.drain() == 1
    assert len(world.report_comments()) == 1


def _answers(world: AppWorld) -> bool:
    import httpx

    try:
        return world.live.client.get("/health").status_code == 200
    except httpx.TransportError:
        return False


def test_ok_to_test_for_a_head_the_commenter_never_saw_is_not_applied(world: AppWorld) -> None:
    world.github.repo(REPO).pulls[NUMBER].author = "mallory"
    world.push("WIDTH = 16\n", path="model.py")
    world.deliver_push(author="mallory")
    world.push("WIDTH = 64\n", path="model.py")  # on GitHub, but its delivery is still on its way

    world.comment("/ok-to-test", author="olivia")
    world.drain()
    replies = [
        c.body
        for c in world.github.comments(REPO, NUMBER, by=BOT)
        if not c.body.startswith("<!-- gradgate:report")
    ]
    assert len(replies) == 1 and "Review the new commits" in replies[0]
    assert world.queues.state.prs.approved(f"{REPO}#{NUMBER}") == ()
    assert world.github.repo(REPO).reactions == []


def test_a_worker_without_the_apps_credentials_says_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gradgate.bot.doors.cli import main

    for name in ("GRADGATE_APP_ID", "GRADGATE_APP_PRIVATE_KEY", "GRADGATE_APP_PRIVATE_KEY_FILE"):
        monkeypatch.delenv(name, raising=False)
    assert main(["worker", "--data-dir", str(tmp_path)]) == 2
    assert "GRADGATE_APP_ID" in capsys.readouterr().err


def test_the_process_that_runs_the_checks_holds_no_credentials(
    world: AppWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker holds the App's key and tokens; the runner it starts (and PR code below it)
    gets none of them: read from the running runner's own /proc/<pid>/environ."""
    import os

    monkeypatch.setenv("GRADGATE_APP_PRIVATE_KEY", world.pem)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_workers_own_token")
    seen: list[bytes] = []

    def read_runner_environment(method: str, path: str) -> None:
        if method == "POST" and path.endswith("/check-runs") and not seen:  # the runner runs
            for entry in Path("/proc").iterdir():
                try:
                    stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                    command = (entry / "cmdline").read_bytes()
                    if int(stat[1]) == os.getpid() and b"gradgate.bot.app.runner" in command:
                        seen.append((entry / "environ").read_bytes())
                except (OSError, ValueError, IndexError):
                    continue

    world.github.hooks.append(read_runner_environment)
    world.deliver_push("opened")
    world.drain()
    assert len(seen) == 1, "the runner was not found while it ran"
    names = {line.split(b"=", 1)[0] for line in seen[0].split(b"\0") if line}
    assert b"PATH" in names
    assert not names & {b"GRADGATE_APP_PRIVATE_KEY", b"GITHUB_TOKEN"}
    assert world.pem.encode()[40:80] not in seen[0]


GPU_POLICY = """\
zones:
  - name: training
    paths: ["train.py"]
    checks: [protected]
  - name: weights
    paths: ["model.py"]
    checks: [checkpoint]
checks:
  checkpoint:
    device: cuda
"""


@pytest.mark.parametrize("policy", [GPU_POLICY], ids=["gpu"])
def test_a_check_that_needs_a_gpu_waits_for_the_gpu_queue_and_completes_the_same_report(
    world: AppWorld,
) -> None:
    from gradgate.bot.app.github import app_forge
    from gradgate.bot.app.jobs import Queue
    from gradgate.bot.app.trust import Gpu
    from gradgate.bot.app.work import Worker

    from tests.bot.app.world import FAST

    forge = app_forge(world.settings, retry=FAST)
    cpu = Worker(world.queues, forge, gpu=Gpu.DEFER, auto_to_gpu=True)
    world.push("WIDTH = 16\n", path="model.py")
    world.deliver_push()
    assert world.drain(Queue.CPU, cpu) == 1
    runs = world.check_runs(world.head)
    assert (runs["gradgate/protected"], runs["gradgate/checkpoint"]) == (
        "success",
        "in_progress",
    )
    assert "waiting for a GPU worker" in world.report_comments()[0]
    assert world.queues.pending(Queue.GPU) == 1

    gpu = Worker(world.queues, forge, gpu=Gpu.RUN)
    assert world.drain(Queue.GPU, gpu) == 1
    runs = world.check_runs(world.head)
    assert runs["gradgate/checkpoint"] != "in_progress"  # ran on the GPU worker
    assert runs["gradgate/protected"] == "success"  # the CPU half's result, kept
    [comment] = world.report_comments()
    assert "waiting for a GPU worker" not in comment


# The runner, held at its start until the test lets it go: a push lands while the GPU half runs.
GATED_RUNNER = """\
import os, pathlib, sys, time
gate = pathlib.Path(sys.argv[1])
(gate / "started").touch()
while not (gate / "go").exists():
    time.sleep(0.01)
os.execv(sys.executable, [sys.executable, "-m", "gradgate.bot.app.runner"])
"""


@pytest.mark.parametrize("when", ["before", "while"])
@pytest.mark.parametrize("policy", [GPU_POLICY], ids=["gpu"])
def test_a_push_that_supersedes_the_gpu_half_concludes_its_checks_on_the_old_head(
    world: AppWorld, tmp_path: Path, when: str
) -> None:
    """The CPU half's report leaves the GPU checks in progress for the GPU half to complete; a
    push before the GPU half starts, or while its runner runs, supersedes it: it concludes them
    on the old head instead, and the newer head is reported as usual."""
    import sys
    import threading

    from gradgate.bot.app.github import app_forge
    from gradgate.bot.app.jobs import Queue
    from gradgate.bot.app.trust import Gpu
    from gradgate.bot.app.work import Worker

    from tests.bot.app.world import FAST

    forge = app_forge(world.settings, retry=FAST)
    cpu = Worker(world.queues, forge, gpu=Gpu.DEFER, auto_to_gpu=True)
    gpu = Worker(world.queues, forge, gpu=Gpu.RUN)
    gate = tmp_path / "gate"
    gate.mkdir()
    gated = Worker(
        world.queues, forge, gpu=Gpu.RUN, runner=[sys.executable, "-c", GATED_RUNNER, str(gate)]
    )
    older = world.push("WIDTH = 16\n", path="model.py")
    world.deliver_push()
    assert world.drain(Queue.CPU, cpu) == 1
    assert world.check_runs(older)["gradgate/checkpoint"] == "in_progress"

    newer = world.push("WIDTH = 32\n", path="model.py")
    if when == "before":
        world.deliver_push()
        assert world.drain(Queue.GPU, gpu) == 1
    else:
        ran: list[int] = []
        half = threading.Thread(target=lambda: ran.append(world.drain(Queue.GPU, gated)))
        half.start()
        world.wait_until(lambda: (gate / "started").exists())
        world.deliver_push()
        (gate / "go").touch()
        half.join()
        assert ran == [1]
    every = world.github.repo(REPO).check_runs
    old = {r.name: r for r in every.values() if r.sha == older}
    assert {r.status for r in old.values()} == {"completed"}  # none left in progress
    assert {n: r.conclusion for n, r in old.items() if r.conclusion != "skipped"} == {
        "gradgate": "cancelled",
        "gradgate/checkpoint": "cancelled",
        "gradgate/protected": "success",  # the CPU half's result
    }
    words = f"superseded by a newer push ({newer[:7]})"
    assert {r.title for r in old.values() if r.conclusion == "cancelled"} == {words}

    assert world.drain(Queue.CPU, cpu) == 1  # the newer head, reported as usual
    assert world.drain(Queue.GPU, gpu) == 1
    new = {r.name: r for r in every.values() if r.sha == newer}
    assert {r.status for r in new.values()} == {"completed"}
    assert {r.conclusion for r in new.values()} <= {"success", "failure", "skipped"}
    assert not any("superseded" in r.title for r in new.values())
    assert len(world.github.comments(REPO, NUMBER, by=BOT)) == 1
    [comment] = world.report_comments()
    stamp = Stamp.read(comment)
    assert stamp is not None and stamp.head == newer
    assert "waiting for a GPU worker" not in comment
    assert world.github.repo(REPO).statuses == []
