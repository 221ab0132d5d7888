"""bot.github.events: real webhook payloads -> what the Action does."""

from __future__ import annotations

import json

import pytest
from gradgate.bot.github.commands import CommentEvent
from gradgate.bot.github.events import (
    PullRequestEvent,
    Skip,
    Skipped,
    WorkflowRunEvent,
    read_event,
)
from gradgate.checks.errors import UsageError

from tests.fakegithub import payloads
from tests.fakegithub.state import WEBHOOKS


def _stored(name: str) -> object:
    return json.loads((WEBHOOKS / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("action", ["opened", "synchronize", "reopened"])
def test_stored_pull_request_payloads_gate_the_head_against_the_base(action: str) -> None:
    event = read_event("pull_request", _stored(f"pull_request/{action}.payload.json"))

    assert event == PullRequestEvent(
        action=action,
        repo="Codertocat/Hello-World",
        number=2,
        head_sha="ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        base_sha="f95f852bd8fca8fcc58a9a2d6c842781e32a215e",
        head_ref="changes",
        head_repo="Codertocat/Hello-World",
        author="Codertocat",
        # a push names the head it replaced: its verdict is weighed again without this PR
        before="f95f852bd8fca8fcc58a9a2d6c842781e32a215e" if action == "synchronize" else None,
    )


def test_a_closed_pull_request_is_read_so_its_head_can_be_weighed_again() -> None:
    event = read_event("pull_request", _stored("pull_request/closed.payload.json"))

    assert isinstance(event, PullRequestEvent) and event.action == "closed"
    assert event.before is None


def test_a_pull_request_action_gradgate_does_not_act_on_is_skipped() -> None:
    payload = _stored("pull_request/closed.payload.json") | {"action": "assigned"}

    assert read_event("pull_request", payload) == Skip(
        "pull_request", "assigned", Skipped.PULL_REQUEST_ACTION
    )


@pytest.mark.parametrize(
    ("changes", "gated"),
    [({"title": {"from": "old"}}, False), ({"base": {"ref": {"from": "dev"}}}, True)],
)
def test_an_edit_is_gated_only_when_the_base_changed(
    changes: dict[str, object], gated: bool
) -> None:
    payload = payloads.pull_request(
        "edited", repo="o/r", number=3, head="a" * 40, base="b" * 40, author="x", changes=changes
    )

    event = read_event("pull_request", payload)

    assert isinstance(event, PullRequestEvent) is gated
    if not gated:
        assert event == Skip("pull_request", "edited", Skipped.EDITED_NOT_BASE)


def test_ready_for_review_is_gated() -> None:
    payload = payloads.pull_request(
        "ready_for_review", repo="o/r", number=3, head="a" * 40, base="b" * 40, author="x"
    )

    assert isinstance(read_event("pull_request", payload), PullRequestEvent)


def test_stored_issue_comment_payloads_read_as_comment_events() -> None:
    created = read_event("issue_comment", _stored("issue_comment/created.payload.json"))
    edited = read_event("issue_comment", _stored("issue_comment/edited.payload.json"))

    assert isinstance(created, CommentEvent) and isinstance(edited, CommentEvent)
    assert (created.action, created.author, created.author_type) == (
        "created",
        "Codertocat",
        "User",
    )
    assert created.is_pull_request is False  # the stored comment is on an issue, not a PR
    assert edited.action == "edited"
    assert created.body.startswith("You are totally right!")


def test_a_fork_run_is_read_from_what_github_says_not_from_its_results() -> None:
    payload = payloads.workflow_run(
        repo="o/r", run_id=9, head="c" * 40, head_branch="patch-1", head_repo="fork/r"
    )

    assert read_event("workflow_run", payload) == WorkflowRunEvent(
        repo="o/r", run_id=9, head_sha="c" * 40, head_branch="patch-1", head_repo="fork/r",
        conclusion="failure",
    )  # fmt: skip


def test_a_cancelled_run_publishes_nothing() -> None:
    payload = payloads.workflow_run(
        repo="o/r", run_id=9, head="c" * 40, head_branch="b", conclusion="cancelled"
    )

    assert read_event("workflow_run", payload) == Skip(
        "workflow_run", "completed", Skipped.RUN_CANCELLED
    )


def test_other_events_are_skipped() -> None:
    assert read_event("push", {}) == Skip("push", None, Skipped.OTHER_EVENT)


def test_a_payload_without_the_fields_gradgate_reads_is_a_clear_error() -> None:
    payload = payloads.pull_request(
        "opened", repo="o/r", number=3, head="a" * 40, base="b" * 40, author="x"
    )
    del payload["pull_request"]["head"]["sha"]

    with pytest.raises(UsageError, match=r"pull_request.*pull_request\.head\.sha"):
        read_event("pull_request", payload)
