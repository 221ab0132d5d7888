"""Approving a fork's code on the App (issue 17): an approval binds to the head that was the PR's
when it was given, a replayed delivery approves nothing, a bare `/ok-to-test` too soon after a
push asks for the SHA, the `ok-to-test` label approves like it, and GitHub's Re-run buttons work
like `/recheck`. Real signed deliveries to a real server, a worker, the fake GitHub."""

from __future__ import annotations

import pytest

from tests.bot.app.world import BOT, NUMBER, POLICY, REPO, AppWorld, fork_push

KEY = f"{REPO}#{NUMBER}"


# Every pull request here comes from a fork: its code waits for approval.
pytestmark = pytest.mark.usefixtures("fork_world")


def _gradient(world: AppWorld, sha: str) -> str:
    return world.check_runs(sha).get("gradgate/gradient", "none")


def _replies(world: AppWorld) -> list[str]:
    return [
        c.body
        for c in world.github.comments(REPO, NUMBER, by=BOT)
        if not c.body.startswith("<!-- gradgate:report")
    ]


def test_a_fork_waits_for_approval_and_its_required_check_is_pending_never_success(
    world: AppWorld,
) -> None:
    head = fork_push(world, 16)
    world.drain()
    runs = world.check_runs(head)
    assert (runs["gradgate"], runs["gradgate/gradient"]) == ("in_progress", "in_progress")
    gradient = world.github.repo(REPO).latest_check_runs(head)["gradgate/gradient"]
    assert "waiting for approval to run code from a fork" in (gradient.title or "")
    assert "waiting for approval to run code from a fork" in world.report_comments()[0]


def test_a_replayed_ok_to_test_delivery_approves_nothing_after_a_newer_push(
    world: AppWorld,
) -> None:
    """The signature covers the body, not X-GitHub-Delivery: the same signed comment sent again
    under a new delivery id, after the attacker pushed, approved the new push before."""
    reviewed = fork_push(world, 16)
    world.drain()
    world.wait(600)
    captured = world.comment_payload("/ok-to-test", author="olivia")
    assert world.live.deliver("issue_comment", captured, delivery="first").status_code == 202
    world.drain()
    assert _gradient(world, reviewed) not in ("in_progress", "none")  # the approved head ran

    pushed = fork_push(world, 666)
    world.drain()
    replayed = world.live.deliver("issue_comment", captured, delivery="replayed")
    assert replayed.status_code == 200  # answered, nothing enqueued
    world.drain()
    assert _gradient(world, pushed) == "in_progress"
    assert world.queues.state.prs.approved(KEY) == (reviewed,)


def test_a_push_delivered_before_the_ok_to_test_does_not_get_the_approval(
    world: AppWorld,
) -> None:
    """The maintainer wrote `/ok-to-test` while the head was the one they reviewed; a push
    seconds later was delivered first. The comment binds to when it was written."""
    reviewed = fork_push(world, 16)
    world.drain()
    world.wait(900)
    comment = world.comment_payload("/ok-to-test", author="olivia")  # written now
    sneaked = fork_push(world, 666)  # pushed after it, and delivered before it
    assert world.live.deliver("issue_comment", comment).status_code == 202
    world.drain()
    assert _gradient(world, sneaked) == "in_progress"  # its code did not run
    assert world.queues.state.prs.approved(KEY) == ()
    [moved] = _replies(world)
    assert reviewed[:7] in moved and sneaked[:7] in moved


def test_a_bare_ok_to_test_soon_after_a_push_asks_for_the_sha_which_then_approves(
    world: AppWorld,
) -> None:
    head = fork_push(world, 16)
    world.drain()
    world.wait(60)  # less than trust.confirm_s (600) after the push
    world.comment("/ok-to-test", author="olivia")
    world.drain()
    assert _gradient(world, head) == "in_progress"
    [asked] = _replies(world)
    assert f"/ok-to-test {head}" in asked

    world.comment(f"/ok-to-test {'0' * 40}", author="olivia")  # another commit: not this one
    world.drain()
    assert _gradient(world, head) == "in_progress"

    world.comment(f"/ok-to-test {head}", author="olivia")
    world.drain()
    assert _gradient(world, head) not in ("in_progress", "none")


@pytest.mark.parametrize("policy", [POLICY + "trust:\n  confirm_s: 30\n"], ids=["confirm_s-30"])
def test_trust_confirm_s_comes_from_the_base_config(world: AppWorld) -> None:
    head = fork_push(world, 16)
    world.drain()
    world.wait(60)
    world.comment("/ok-to-test", author="olivia")
    world.drain()
    assert _gradient(world, head) not in ("in_progress", "none")


def test_the_ok_to_test_label_approves_the_head_it_was_put_on(world: AppWorld) -> None:
    head = fork_push(world, 16)
    world.drain()
    world.wait(600)
    assert world.label("ok-to-test", by="mallory").status_code == 202  # no write access
    world.drain()
    assert _gradient(world, head) == "in_progress"
    assert world.label("ok-to-test", by="olivia").status_code == 202
    world.drain()
    assert _gradient(world, head) not in ("in_progress", "none")
    assert world.label("bug", by="olivia").status_code == 204


def test_the_label_approves_the_sha_it_carries_at_once_and_nothing_pushed_after(
    world: AppWorld,
) -> None:
    fork_push(world, 16)  # the head the late label names
    world.drain()
    late = world.label_payload("ok-to-test", by="olivia")  # put on now, delivered later
    second = fork_push(world, 32)
    world.drain()
    assert world.live.deliver("pull_request", late).status_code == 202
    world.drain()
    assert _gradient(world, second) == "in_progress"  # pushed after the label: still waits

    # On the head it was put on, no wait: a bare `/ok-to-test` this soon would ask for the SHA.
    assert world.label("ok-to-test", by="olivia").status_code == 202
    world.drain()
    assert _gradient(world, second) not in ("in_progress", "none")


@pytest.mark.parametrize("event", ["check_run", "check_suite"])
def test_the_re_run_buttons_work_like_recheck(world: AppWorld, event: str) -> None:
    world.github.repo(REPO).pulls[NUMBER].author = "alice"
    world.push("RUNS = 1\n", path="train.py")
    world.deliver_push()
    world.drain()
    ran = len(world.github.requests("POST", "/check-runs$"))

    assert world.rerun(event, by="mallory").status_code == 202  # no write access: nothing
    world.drain()
    assert len(world.github.requests("POST", "/check-runs$")) == ran

    assert world.rerun(event, by="olivia").status_code == 202  # a fork's suite lists no PR
    world.drain()
    assert len(world.github.requests("POST", "/check-runs$")) > ran  # re-ran and reported
    assert len(world.report_comments()) == 1

    assert world.rerun(event, by="olivia", sha="e" * 40).status_code == 204  # no PR has it
