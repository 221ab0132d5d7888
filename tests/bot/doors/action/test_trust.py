"""Issue 17 on the Action: a fork's pull request never decides its own verdict. Each test plays
an attack (or a plain use) through the real stages against the fake GitHub (trust_world)."""

from __future__ import annotations

import json
import shutil

import pytest
from gradgate.bot.github.results import CHECK_FILE, PLAN_FILE

from tests.bot.doors.action.trust_world import (
    CODE_POLICY,
    EDITED,
    FORK,
    WAITING,
    approval,
    check_and_publish,
    fork,
    fork_run,
    gate_and_publish,
    gate_outputs,
    gradgate,
    run_event,
    run_trusted,
    use_code_policy,
    waiting_fork,
)  # fmt: skip
from tests.bot.doors.action.world import NUMBER, REPO, World, read_json
from tests.fakegithub import BOT, payloads

# -- the attacks of issue 17 -------------------------------------------------------------------


def test_a_fork_that_edits_its_check_result_to_a_pass_is_published_as_failing(
    world: World,
) -> None:
    fork(world)
    world.push(EDITED)
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    forged = read_json(uploaded / CHECK_FILE.format(name="protected"))
    forged["verdict"] = "success"
    for check in forged["checks"]:
        check.update(outcome="pass", findings=[])
    (uploaded / CHECK_FILE.format(name="protected")).write_text(json.dumps(forged))

    assert gate_and_publish(world, uploaded) == 0

    assert gradgate(world) == ("completed", "failure")
    (comment,) = world.github.comments(REPO, NUMBER)
    assert "gradgate failed" in comment.body and "train.py:1" in comment.body


def test_a_fork_that_uploads_an_empty_plan_still_gets_protected_checked(world: World) -> None:
    fork(world)
    world.push(EDITED)
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    record = read_json(uploaded / PLAN_FILE)
    record["plan"]["checks"] = []
    (uploaded / PLAN_FILE).write_text(json.dumps(record))
    for path in uploaded.glob("check-*.json"):
        path.unlink()

    assert gate_and_publish(world, uploaded) == 0

    assert gradgate(world) == ("completed", "failure")
    runs = world.github.repo(REPO).latest_check_runs(world.head)
    assert runs["gradgate/protected"].conclusion == "failure"


def test_forged_plan_record_fields_never_reach_the_comment_or_the_stamp(world: World) -> None:
    fork(world)
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    record = read_json(uploaded / PLAN_FILE)
    lie = "abc -->\n## ✅ gradgate passed\n@acme/maintainers ![x](https://evil.example/x.png)"
    record.update(config_hash=lie, base_sha=lie, config_source=lie)
    record["plan"]["checks"] = []
    (uploaded / PLAN_FILE).write_text(json.dumps(record))

    assert gate_and_publish(world, uploaded) == 0

    (comment,) = world.github.comments(REPO, NUMBER, by=BOT)
    assert "evil.example" not in comment.body and "@acme" not in comment.body
    assert comment.body.count("gradgate:stamp") == 1
    assert f"head={world.head} base={world.base}" in comment.body


def test_a_forks_code_checks_wait_for_approval_and_never_pass(world: World) -> None:
    waiting_fork(world)  # gate_and_publish asserts the gate succeeded

    assert gate_outputs(world)["run"] == "false"  # no job gets the fork's code
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
    use_code_policy(world)
    fork(world)
    old = world.github.repo(REPO).pulls[NUMBER].head_sha
    world.repo.write("model.py", "def build():\n    return 3\n")
    world.github.repo(REPO).pulls[NUMBER].head_sha = head = world.repo.commit("a newer push")
    text = body.format(head=head, short=head[:12], old=old)
    event = approval(world, text, by=who, author_type="Bot" if who.endswith("[bot]") else "User")

    assert (
        run_trusted(world, "gate", "issue_comment", event, "--results", str(world.tmp / "t")) == 0
    )

    outputs = gate_outputs(world)
    assert (outputs.get("run") == "true") is runs
    if runs:
        (job,) = json.loads(outputs["matrix"])["include"]
        assert job == {"check": "gradient", "runs_on": ["self-hosted", "gpu"]}  # the base's
        assert (outputs["pr"], outputs["head"]) == (str(NUMBER), head)


def test_an_approved_run_completes_the_check_runs_left_waiting(world: World) -> None:
    waiting_fork(world)  # gradgate and gradgate/gradient wait, in progress
    event = approval(world, f"/ok-to-test {world.head}")
    trusted = world.tmp / "approved"
    assert run_trusted(world, "gate", "issue_comment", event, "--results", str(trusted)) == 0

    check_and_publish(world, "issue_comment", event, trusted)

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
    fork(world)
    world.github.repo(REPO).collaborators["mallory"] = "write"  # even a trusted author's fork
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)

    assert gate_and_publish(world, uploaded) == 0

    assert gate_outputs(world)["run"] == "false"  # the built-in config plans no gradient check
    record = read_json(world.tmp / "trusted" / PLAN_FILE)
    assert record["config_source"] == "built-in defaults"


def test_a_publish_job_given_the_forks_upload_publishes_nothing(world: World) -> None:
    """The publishing workflow from before the gate fed the fork's upload to `publish`."""
    fork(world)
    world.push(EDITED)
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    for path in uploaded.glob("check-*.json"):
        forged = read_json(path)
        forged["verdict"] = "success"
        for check in forged["checks"]:
            check.update(outcome="pass", findings=[])
        path.write_text(json.dumps(forged))
    world.token = world.github.token(checks=True)

    code = world.action("workflow_run", run_event(world), "--stage", "publish", "--results",
                        str(uploaded))  # fmt: skip

    assert code == 2
    assert world.github.repo(REPO).latest_check_runs(world.head) == {}
    assert world.github.comments(REPO, NUMBER) == []


def test_results_naming_someone_elses_pull_request_are_refused(world: World) -> None:
    world.push(EDITED)
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    # A fork's run claims PR 7, but GitHub says the run was for another branch.
    event = payloads.workflow_run(
        repo=REPO, run_id=556, head="e" * 40, head_branch="evil", head_repo=FORK
    )
    code = run_trusted(world, "gate", "workflow_run", event, "--uploaded", str(uploaded))

    assert code == 2
    assert gate_outputs(world).get("publish") != "true"
    assert world.github.comments(REPO, NUMBER) == []


def test_results_uploaded_for_another_commit_decide_nothing(world: World) -> None:
    fork(world)
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)  # a passing run, for the head before the push below
    world.push(EDITED)

    assert gate_and_publish(world, uploaded) == 0

    assert gradgate(world) == ("completed", "failure")  # the new head, checked here


def test_publishing_needs_no_checkout(world: World) -> None:
    """The publish job has only the gate's results: no checkout, no git, no PR code."""
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    event = run_event(world)
    trusted = world.tmp / "trusted"
    run_trusted(world, "gate", "workflow_run", event, "--uploaded", str(uploaded), "--results",
             str(trusted))  # fmt: skip
    head = world.head
    shutil.rmtree(world.repo.root)
    shutil.rmtree(world.tmp / "checkout")

    assert world.action("workflow_run", event, "--stage", "publish", "--results", str(trusted)) == 0

    assert world.github.repo(REPO).latest_check_runs(head)["gradgate"].conclusion == "success"
