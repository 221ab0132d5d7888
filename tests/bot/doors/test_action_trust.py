"""Issue 17 on the Action: a fork's pull request never decides its own verdict.

Each test plays an attack (or a plain use) through the real stages: the fork's `pull_request`
run (plan and check, no token) writes what it likes; the trusted side (gradgate-publish.yml's
gate, check and publish jobs) runs in a checkout of the default branch that fetches the PR's
head as git objects, against the fake GitHub.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from gradgate.bot.github.results import CHECK_FILE, PLAN_FILE
from gradgate.bot.github.workflows import workflows

from tests.bot.doors.action_world import NUMBER, REPO, TRAIN, World, make_world, read_json
from tests.bot.github.workflow_walk import JobRun, walk
from tests.fakegithub import BOT, FakeGitHub, payloads
from tests.gitrepo import GitRepo

EDITED = TRAIN.replace("runs/v3", "runs/v4")  # edits a `# NO_REFAC` line: protected fails
FORK = "mallory/model"
# The base's config: `protected` everywhere (built in), the gradient check on model.py, on a
# self-hosted GPU runner.
CODE_POLICY = """\
zones:
  - name: model
    paths: ["model.py"]
    checks: [gradient]
runners:
  gradient: [self-hosted, gpu]
"""
WAITING = "waiting for approval to run code from a fork"
ACTION = "acme/gradgate@" + "0123456789abcdef" * 2 + "01234567"


@pytest.fixture
def world(
    repo: GitRepo, github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[World]:
    yield from make_world(repo, github, tmp_path, monkeypatch)


def _fork(world: World) -> None:
    world.github.repo(REPO).pulls[NUMBER].head_repo = FORK
    world.github.user("mallory")
    world.github.repo(REPO).pulls[NUMBER].author = "mallory"


def _fork_run(world: World, uploaded: Path) -> None:
    """The fork's own `pull_request` run: plan, then every check job, with no token."""
    token, world.token = world.token, ""
    world.env.pop("GITHUB_RUN_ID", None)
    output = world.tmp / "fork_output"
    world.env["GITHUB_OUTPUT"] = str(output)
    world.pull_request("synchronize", "--stage", "plan", "--results", str(uploaded))
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    for job in json.loads(outputs["matrix"])["include"]:
        world.pull_request(
            "synchronize", "--stage", "check", "--check", job["check"], "--results", str(uploaded)
        )
    world.token = token
    output.unlink()


def _checkout(world: World) -> Path:
    """actions/checkout of the default branch; GitHub keeps the PR's head at refs/pull/N/head."""
    world.repo.git("update-ref", f"refs/pull/{NUMBER}/head", world.head)
    target = world.tmp / "checkout"
    shutil.rmtree(target, ignore_errors=True)
    world.repo.git("clone", "-q", "--branch", "main", str(world.repo.root), str(target))
    return target


def _trusted(world: World, stage: str, event: str, payload: dict[str, Any], *args: str) -> int:
    out = world.tmp / f"trusted-{stage}"
    out.unlink(missing_ok=True)
    world.env["GITHUB_OUTPUT"] = str(out)
    world.env["GITHUB_RUN_ID"] = "4242"  # gradgate-publish.yml's run: all its jobs share it
    world.token = world.github.token(checks=True)
    return world.action(event, payload, "--stage", stage, "--repo", str(_checkout(world)), *args)


def _outputs(world: World, stage: str = "gate") -> dict[str, str]:
    path = world.tmp / f"trusted-{stage}"
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def _run_event(world: World, **kw: Any) -> dict[str, Any]:
    head_repo = world.github.repo(REPO).pulls[NUMBER].head_repo
    return payloads.workflow_run(
        repo=REPO, run_id=900, head=world.head, head_branch="pr", head_repo=head_repo, **kw
    )


def _gate_and_publish(world: World, uploaded: Path, event: dict[str, Any] | None = None) -> int:
    """gradgate-publish.yml on workflow_run: the gate job, then (if it says so) publish."""
    event = event or _run_event(world)
    trusted = world.tmp / "trusted"
    shutil.rmtree(trusted, ignore_errors=True)
    code = _trusted(
        world, "gate", "workflow_run", event, "--uploaded", str(uploaded), "--results", str(trusted)
    )
    assert code == 0
    if _outputs(world).get("publish") != "true":
        return 0
    return world.action("workflow_run", event, "--stage", "publish", "--results", str(trusted))


def _gradgate(world: World) -> tuple[str, str]:
    run = world.github.repo(REPO).latest_check_runs(world.head)["gradgate"]
    return run.status, str(run.conclusion)


def _use_code_policy(world: World) -> None:
    world.repo.checkout("main")
    world.repo.write(".gradgate.yml", CODE_POLICY)
    world.repo.write("model.py", "def build():\n    return 1\n")
    world.repo.commit("the gradient check on model.py")
    world.repo.checkout("pr")
    world.repo.git("merge", "-q", "main")
    world.repo.write("model.py", "def build():\n    return 2\n")
    world.github.repo(REPO).pulls[NUMBER].head_sha = world.repo.commit("change the model")
    world.github.repo(REPO).pulls[NUMBER].base_sha = world.base


# -- the attacks of issue 17 -------------------------------------------------------------------


def test_a_fork_that_edits_its_check_result_to_a_pass_is_published_as_failing(
    world: World,
) -> None:
    _fork(world)
    world.push(EDITED)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    forged = read_json(uploaded / CHECK_FILE.format(name="protected"))
    forged["verdict"] = "success"
    for check in forged["checks"]:
        check.update(outcome="pass", findings=[])
    (uploaded / CHECK_FILE.format(name="protected")).write_text(json.dumps(forged))

    assert _gate_and_publish(world, uploaded) == 0

    assert _gradgate(world) == ("completed", "failure")
    (comment,) = world.github.comments(REPO, NUMBER)
    assert "gradgate failed" in comment.body and "train.py:1" in comment.body


def test_a_fork_that_uploads_an_empty_plan_still_gets_protected_checked(world: World) -> None:
    _fork(world)
    world.push(EDITED)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    record = read_json(uploaded / PLAN_FILE)
    record["plan"]["checks"] = []
    (uploaded / PLAN_FILE).write_text(json.dumps(record))
    for path in uploaded.glob("check-*.json"):
        path.unlink()

    assert _gate_and_publish(world, uploaded) == 0

    assert _gradgate(world) == ("completed", "failure")
    runs = world.github.repo(REPO).latest_check_runs(world.head)
    assert runs["gradgate/protected"].conclusion == "failure"


def test_forged_plan_record_fields_never_reach_the_comment_or_the_stamp(world: World) -> None:
    _fork(world)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    record = read_json(uploaded / PLAN_FILE)
    lie = "abc -->\n## ✅ gradgate passed\n@acme/maintainers ![x](https://evil.example/x.png)"
    record.update(config_hash=lie, base_sha=lie, config_source=lie)
    record["plan"]["checks"] = []
    (uploaded / PLAN_FILE).write_text(json.dumps(record))

    assert _gate_and_publish(world, uploaded) == 0

    (comment,) = world.github.comments(REPO, NUMBER, by=BOT)
    assert "evil.example" not in comment.body and "@acme" not in comment.body
    assert comment.body.count("gradgate:stamp") == 1
    assert f"head={world.head} base={world.base}" in comment.body


def test_a_forks_code_checks_wait_for_approval_and_never_pass(world: World) -> None:
    _use_code_policy(world)
    _fork(world)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)  # the fork's run passes everything it likes: advisory only

    assert _gate_and_publish(world, uploaded) == 0

    assert _outputs(world)["run"] == "false"  # no job gets the fork's code
    runs = world.github.repo(REPO).latest_check_runs(world.head)
    assert (runs["gradgate"].status, runs["gradgate"].conclusion) == ("in_progress", None)
    assert runs["gradgate"].title is not None and WAITING in runs["gradgate"].title
    assert runs["gradgate/gradient"].status == "in_progress"
    assert f"/ok-to-test {world.head}" in str(runs["gradgate/gradient"].summary)
    assert runs["gradgate/protected"].conclusion == "success"  # run on the trusted side


@pytest.mark.parametrize(
    ("who", "body", "runs"),
    [
        ("olivia", "/ok-to-test {head}", True),  # write access, this head
        ("mallory", "/ok-to-test {head}", False),  # the fork's author approves nothing
        ("olivia", "/ok-to-test", False),  # which commit? a bare command approves none
        ("olivia", "/ok-to-test {short}", False),  # a short SHA can be matched by a crafted one
        ("olivia", "/ok-to-test {old}", False),  # an approval of an older head
        ("olivia", "> /ok-to-test {head}", False),  # quoted
        ("github-actions[bot]", "/ok-to-test {head}", False),
    ],
)
def test_only_ok_to_test_with_the_heads_sha_by_a_writer_runs_a_forks_code(
    world: World, who: str, body: str, runs: bool
) -> None:
    _use_code_policy(world)
    _fork(world)
    old = world.github.repo(REPO).pulls[NUMBER].head_sha
    world.repo.write("model.py", "def build():\n    return 3\n")
    world.github.repo(REPO).pulls[NUMBER].head_sha = head = world.repo.commit("a newer push")
    text = body.format(head=head, short=head[:12], old=old)
    made = world.github.add_comment(REPO, NUMBER, text, author=who)
    event = payloads.issue_comment(
        "created", repo=REPO, number=NUMBER, comment_id=made.id, body=text, author=who,
        author_type="Bot" if who.endswith("[bot]") else "User",
    )  # fmt: skip

    assert _trusted(world, "gate", "issue_comment", event, "--results", str(world.tmp / "t")) == 0

    outputs = _outputs(world)
    assert (outputs.get("run") == "true") is runs
    if runs:
        (job,) = json.loads(outputs["matrix"])["include"]
        assert job == {"check": "gradient", "runs_on": ["self-hosted", "gpu"]}  # the base's
        assert (outputs["pr"], outputs["head"]) == (str(NUMBER), head)


def test_an_approved_run_completes_the_check_runs_left_waiting(world: World) -> None:
    _use_code_policy(world)
    _fork(world)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    _gate_and_publish(world, uploaded)  # gradgate and gradgate/gradient wait, in progress
    text = f"/ok-to-test {world.head}"
    made = world.github.add_comment(REPO, NUMBER, text, author="olivia")
    event = payloads.issue_comment(
        "created", repo=REPO, number=NUMBER, comment_id=made.id, body=text, author="olivia"
    )
    trusted = world.tmp / "approved"
    assert _trusted(world, "gate", "issue_comment", event, "--results", str(trusted)) == 0
    gate = _outputs(world)
    for job in json.loads(gate["matrix"])["include"]:  # the check job, on the runner it names
        world.action(
            "issue_comment", event, "--stage", "check", "--check", job["check"],
            "--pr", gate["pr"], "--head", gate["head"], "--base-ref", gate["base_ref"],
            "--repo", str(_checkout(world)), "--results", str(trusted),
        )  # fmt: skip

    world.action("issue_comment", event, "--stage", "publish", "--results", str(trusted))

    repo = world.github.repo(REPO)
    ours = [r for r in repo.check_runs.values() if r.sha == world.head]
    assert [r for r in ours if r.status != "completed"] == []
    assert len([r for r in ours if r.name == "gradgate"]) == 1  # completed in place, not added
    assert repo.latest_check_runs(world.head)["gradgate/gradient"].title != WAITING


def test_a_fork_cannot_pick_the_runners_or_weaken_the_sandbox_with_its_own_config(
    world: World,
) -> None:
    world.repo.checkout("main")
    world.repo.remove(".gradgate.yml")  # a repository that has not adopted gradgate yet
    world.repo.commit("no config yet")
    world.repo.checkout("pr")
    world.repo.git("merge", "-q", "main")
    world.repo.write(".gradgate.yml", CODE_POLICY + "sandbox: auto\n")
    world.repo.write("model.py", "def build():\n    return 2\n")
    world.github.repo(REPO).pulls[NUMBER].head_sha = world.repo.commit("adopt, my way")
    world.github.repo(REPO).pulls[NUMBER].base_sha = world.base
    _fork(world)
    world.github.repo(REPO).collaborators["mallory"] = "write"  # even a trusted author's fork
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)

    assert _gate_and_publish(world, uploaded) == 0

    assert _outputs(world)["run"] == "false"  # the built-in config plans no gradient check
    record = read_json(world.tmp / "trusted" / PLAN_FILE)
    assert record["config_source"] == "built-in defaults"


def test_a_publish_job_given_the_forks_upload_publishes_nothing(world: World) -> None:
    """The publishing workflow from before the gate fed the fork's upload to `publish`."""
    _fork(world)
    world.push(EDITED)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    for path in uploaded.glob("check-*.json"):
        forged = read_json(path)
        forged["verdict"] = "success"
        for check in forged["checks"]:
            check.update(outcome="pass", findings=[])
        path.write_text(json.dumps(forged))
    world.token = world.github.token(checks=True)

    code = world.action("workflow_run", _run_event(world), "--stage", "publish", "--results",
                        str(uploaded))  # fmt: skip

    assert code == 2
    assert world.github.repo(REPO).latest_check_runs(world.head) == {}
    assert world.github.comments(REPO, NUMBER) == []


def test_results_naming_someone_elses_pull_request_are_refused(world: World) -> None:
    world.push(EDITED)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    # A fork's run claims PR 7, but GitHub says the run was for another branch.
    event = payloads.workflow_run(
        repo=REPO, run_id=556, head="e" * 40, head_branch="evil", head_repo=FORK
    )
    code = _trusted(world, "gate", "workflow_run", event, "--uploaded", str(uploaded))

    assert code == 2
    assert _outputs(world).get("publish") != "true"
    assert world.github.comments(REPO, NUMBER) == []


def test_results_uploaded_for_another_commit_decide_nothing(world: World) -> None:
    _fork(world)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)  # a passing run, for the head before the push below
    world.push(EDITED)

    assert _gate_and_publish(world, uploaded) == 0

    assert _gradgate(world) == ("completed", "failure")  # the new head, checked here


def test_publishing_needs_no_checkout(world: World) -> None:
    """The publish job has only the gate's results: no checkout, no git, no PR code."""
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    event = _run_event(world)
    trusted = world.tmp / "trusted"
    _trusted(world, "gate", "workflow_run", event, "--uploaded", str(uploaded), "--results",
             str(trusted))  # fmt: skip
    head = world.head
    shutil.rmtree(world.repo.root)
    shutil.rmtree(world.tmp / "checkout")

    assert world.action("workflow_run", event, "--stage", "publish", "--results", str(trusted)) == 0

    assert world.github.repo(REPO).latest_check_runs(head)["gradgate"].conclusion == "success"


# -- issue 18: a publish run with nothing to publish, and check runs left in progress ----------


def test_a_title_edit_run_without_results_leaves_the_heads_checks_as_they_are(
    world: World,
) -> None:
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    _gate_and_publish(world, uploaded)
    before = {n: (r.id, r.conclusion) for n, r in world.github.repo(REPO).latest_check_runs(
        world.head).items()}  # fmt: skip
    assert before["gradgate"][1] == "success"
    empty = world.tmp / "nothing"
    empty.mkdir()

    assert _gate_and_publish(world, empty, _run_event(world, conclusion="success")) == 0

    after = {n: (r.id, r.conclusion) for n, r in world.github.repo(REPO).latest_check_runs(
        world.head).items()}  # fmt: skip
    assert after == before
    assert world.statuses(world.head) == {}


def test_a_failed_run_without_results_is_an_error_on_its_head(world: World) -> None:
    empty = world.tmp / "nothing"
    empty.mkdir()

    assert _gate_and_publish(world, empty, _run_event(world, conclusion="failure")) == 2

    run = world.github.repo(REPO).latest_check_runs(world.head)["gradgate"]
    assert run.conclusion == "failure" and "could not decide" in str(run.title)


def test_publishing_concludes_its_own_check_runs_left_in_progress(world: World) -> None:
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    token = world.github.token(checks=True)
    # A killed job, and a create whose answer was lost and was retried: three left running.
    repo = world.github.repo(REPO)
    for name in ("gradgate", "gradgate", "gradgate/protected"):
        _create_in_progress(world, token, name)

    _gate_and_publish(world, uploaded)

    left = [r for r in repo.check_runs.values() if r.sha == world.head and r.status != "completed"]
    assert left == []
    assert repo.latest_check_runs(world.head)["gradgate"].conclusion == "success"


def _create_in_progress(world: World, token: str, name: str) -> None:
    import requests

    answer = requests.post(
        f"{world.github.url}/repos/{REPO}/check-runs",
        json={"name": name, "head_sha": world.head, "status": "in_progress"},
        headers={"Authorization": f"token {token}"},
        timeout=10,
    )
    assert answer.status_code == 201, answer.text


# -- gradgate-publish.yml walked job by job, with a real gate's outputs ------------------------


def _walk_publish(world: World, event: dict[str, Any], name: str) -> list[JobRun]:
    text = workflows(action=ACTION)["gradgate-publish.yml"]
    contexts = {"github": {"event_name": name, "repository": REPO, "event": event}}
    return walk(yaml.safe_load(text), contexts, {"gate": _outputs(world)}, action=ACTION)


def test_the_trusted_workflow_gives_a_forks_code_no_runner_before_approval(world: World) -> None:
    _use_code_policy(world)
    _fork(world)
    uploaded = world.tmp / "uploaded"
    _fork_run(world, uploaded)
    event = _run_event(world, conclusion="success")
    _gate_and_publish(world, uploaded, event)

    runs = {r.job: r for r in _walk_publish(world, event, "workflow_run")}

    assert set(runs) == {"gate", "publish"}  # no `check` job: nothing runs the fork's code
    gate, publish = runs["gate"], runs["publish"]
    assert gate.runs_on == publish.runs_on == "ubuntu-latest"
    assert gate.permissions == {"contents": "read", "actions": "read", "pull-requests": "read"}
    assert gate.checkouts == [{"fetch-depth": 0, "persist-credentials": False}]  # default branch
    assert publish.checkouts == []  # the job with a token that writes has no git at all
    assert "write" in publish.permissions.values()


def test_after_approval_only_the_approved_head_goes_to_the_self_hosted_runner(
    world: World,
) -> None:
    _use_code_policy(world)
    _fork(world)
    text = f"/ok-to-test {world.head}"
    made = world.github.add_comment(REPO, NUMBER, text, author="olivia")
    event = payloads.issue_comment(
        "created", repo=REPO, number=NUMBER, comment_id=made.id, body=text, author="olivia"
    )
    _trusted(world, "gate", "issue_comment", event, "--results", str(world.tmp / "t"))

    runs = _walk_publish(world, event, "issue_comment")

    (check,) = [r for r in runs if r.job == "check"]
    assert check.runs_on == ["self-hosted", "gpu"]  # the base's `runners:`
    assert check.permissions == {"contents": "read"}
    assert check.checkouts == [{"fetch-depth": 0, "persist-credentials": False}]
    (step,) = [s for s in check.steps if s.uses == ACTION]
    assert (step.with_["stage"], step.with_["head"]) == ("check", world.head)
    assert {r.job for r in runs} == {"gate", "check", "publish"}  # not `recheck`
