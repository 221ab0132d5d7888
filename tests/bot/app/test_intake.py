"""What the App's intake makes of each delivery, called directly on GitHub's real payloads (no
server): the job it starts with every field a worker reads, the reason it ignores one (GitHub's
delivery log shows it), and the error that answers a malformed one with 400. Pure and fast: the
mutation run of bot/app/intake.py runs this file (issue 39)."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

import pytest
from gradgate.bot.app.intake import Ignored, Malformed, intake, pr_number
from gradgate.bot.app.jobs import Job, Kind, PullRequest

from tests.bot.app.conftest import on_pull_request, payload

PR = PullRequest(
    repo="Codertocat/Hello-World",
    number=2,
    installation=1,
    clone_url="https://github.com/Codertocat/Hello-World.git",
)
HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
BASE = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
OPENED_AT = datetime.fromisoformat("2019-05-15T15:20:33+00:00").timestamp()
COMMENTED_AT = datetime.fromisoformat("2019-05-15T15:20:21+00:00").timestamp()


def _comment(body: str | None = "/recheck", **comment: Any) -> dict[str, Any]:
    event = on_pull_request(payload("issue_comment/created.with-installation"))
    event["comment"] = dict(event["comment"], body=body, **comment)
    return event


def _with(event: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    event = copy.deepcopy(event)
    *parents, last = path.split(".")
    node = event
    for part in parents:
        node = node[part]
    if value is _DROP:
        del node[last]
    else:
        node[last] = value
    return event


_DROP = object()


def _ignored(decision: Job | Ignored) -> str:
    assert isinstance(decision, Ignored), decision
    return decision.reason


# --- pull_request -------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["opened", "reopened", "synchronize", "ready_for_review"])
def test_a_change_to_what_the_pr_holds_starts_a_run_of_its_head(action: str) -> None:
    event = payload(f"pull_request/{'opened' if action == 'ready_for_review' else action}")
    event["action"] = action
    job = intake("pull_request", "d-1", event)
    assert job == Job(
        id="d-1",
        kind=Kind.PUSH,
        pr=PR,
        head_sha=HEAD,
        base_ref="master",
        author="Codertocat",
        at=OPENED_AT,
        before=BASE if action == "synchronize" else None,
    )


def test_only_a_push_names_the_head_it_replaced() -> None:
    reopened = payload("pull_request/reopened")
    reopened["before"] = BASE  # GitHub sends `before` with synchronize alone; ignored elsewhere
    job = intake("pull_request", "d-1", reopened)
    assert isinstance(job, Job) and job.before is None


def test_a_new_base_starts_a_run_and_a_title_edit_does_not() -> None:
    edited = dict(payload("pull_request/opened"), action="edited")
    new_base = dict(edited, changes={"base": {"ref": {"from": "dev"}}})
    job = intake("pull_request", "d-1", new_base)
    assert isinstance(job, Job) and job.kind is Kind.PUSH and job.before is None
    title = dict(edited, changes={"title": {"from": "Update README"}})
    reason = "pull_request 'edited' changes nothing gradgate judges"
    assert _ignored(intake("pull_request", "d-1", title)) == reason
    assert _ignored(intake("pull_request", "d-1", dict(edited, changes={}))) == reason
    assert _ignored(intake("pull_request", "d-1", edited)) == reason
    # `base` among a synchronize's changes is no edit: it runs as the push it is, and says so
    pushed = dict(payload("pull_request/synchronize"), changes={"base": {}})
    assert intake("pull_request", "d-1", pushed).before == BASE  # type: ignore[union-attr]


@pytest.mark.parametrize("action", ["assigned", "unlabeled", "review_requested", "converted"])
def test_an_action_that_changes_nothing_judged_is_ignored(action: str) -> None:
    event = dict(payload("pull_request/opened"), action=action)
    reason = f"pull_request {action!r} changes nothing gradgate judges"
    assert _ignored(intake("pull_request", "d-1", event)) == reason


def test_the_ok_to_test_label_approves_the_head_it_was_put_on() -> None:
    event = dict(
        payload("pull_request/opened"),
        action="labeled",
        label={"name": "ok-to-test", "color": "0e8a16"},
        sender={"login": "maintainer", "type": "User"},
    )
    job = intake("pull_request", "d-1", event)
    assert job == Job(
        id="d-1",
        kind=Kind.LABEL,
        pr=PR,
        head_sha=HEAD,
        base_ref="master",
        sender="maintainer",
        at=OPENED_AT,
    )


@pytest.mark.parametrize(
    "change",
    [
        {"label": {"name": "bug"}},
        {"label": {"name": "OK-TO-TEST"}},
        {},  # no label at all
    ],
)
def test_any_other_label_changes_nothing(change: dict[str, Any]) -> None:
    event = dict(payload("pull_request/opened"), action="labeled", **change)
    reason = "a label other than ok-to-test changes nothing gradgate judges"
    assert _ignored(intake("pull_request", "d-1", event)) == reason


def test_an_ok_to_test_label_nobody_put_on_approves_nothing() -> None:
    event = dict(payload("pull_request/opened"), action="labeled", label={"name": "ok-to-test"})
    event.pop("sender")
    reason = "a label other than ok-to-test changes nothing gradgate judges"
    assert _ignored(intake("pull_request", "d-1", event)) == reason


def test_closing_a_pr_weighs_its_head_again() -> None:
    job = intake("pull_request", "d-1", payload("pull_request/closed"))
    assert job == Job(id="d-1", kind=Kind.CLOSED, pr=PR, head_sha=HEAD, base_ref="master")


def test_a_time_without_a_zone_is_no_time() -> None:
    """An /ok-to-test binds to GitHub's clock: a naive time could be any zone's."""
    naive = _with(payload("pull_request/opened"), "pull_request.updated_at", "2019-05-15T15:20:33")
    assert intake("pull_request", "d-1", naive).at is None  # type: ignore[union-attr]
    unset = _with(payload("pull_request/opened"), "pull_request.updated_at", None)
    assert intake("pull_request", "d-1", unset).at is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("path", "where"),
    [
        ("pull_request.head.sha", "pull_request.head.sha"),
        ("installation", "installation"),
        ("pull_request.user", "pull_request.user"),
        ("repository.clone_url", "repository.clone_url"),
    ],
)
def test_a_pull_request_without_a_field_gradgate_needs_is_malformed(path: str, where: str) -> None:
    event = _with(payload("pull_request/opened"), path, _DROP)
    with pytest.raises(Malformed) as caught:
        intake("pull_request", "d-1", event)
    assert str(caught.value) == f"pull_request payload: {where}: Field required"


def test_a_payload_that_is_not_an_object_is_malformed_as_a_whole() -> None:
    with pytest.raises(Malformed) as caught:
        intake("pull_request", "d-1", [])  # type: ignore[arg-type]
    assert str(caught.value).startswith("pull_request payload: payload: ")


def test_a_bad_before_is_refused_even_where_it_is_not_used() -> None:
    event = dict(payload("pull_request/opened"), before="HEAD~1")
    with pytest.raises(Malformed, match=r"^pull_request payload: before: "):
        intake("pull_request", "d-1", event)


def test_a_label_name_of_the_wrong_type_is_malformed() -> None:
    event = dict(payload("pull_request/opened"), action="labeled", label={"name": 7})
    with pytest.raises(Malformed, match=r"^pull_request payload: label\.name: "):
        intake("pull_request", "d-1", event)


# --- issue_comment ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body", ["/recheck", "/ok-to-test", "thanks!\n\n/recheck all", "please /ok-to-test this"]
)
def test_a_new_comment_with_a_command_is_a_job_for_the_worker(body: str) -> None:
    job = intake("issue_comment", "d-2", _comment(body), known_head=HEAD)
    assert job == Job(
        id="d-2",
        kind=Kind.COMMENT,
        pr=PR,
        sender="Codertocat",
        comment_id=492700400,
        body=body,
        known_head=HEAD,
        at=COMMENTED_AT,
    )


def test_a_comment_the_server_knows_no_head_for_carries_none() -> None:
    job = intake("issue_comment", "d-2", _comment())
    assert isinstance(job, Job) and job.known_head is None


def test_a_comment_time_without_a_zone_is_no_time() -> None:
    job = intake("issue_comment", "d-2", _comment(created_at="2019-05-15T15:20:21"))
    assert isinstance(job, Job) and job.at is None


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (_comment("recheck please"), "the comment holds no gradgate command"),
        (_comment(None), "the comment holds no gradgate command"),
        (_comment(""), "the comment holds no gradgate command"),
        (
            dict(_comment(), action="edited"),
            "only new comments carry commands (an edit never does)",
        ),
        (
            dict(_comment(), action="deleted"),
            "only new comments carry commands (an edit never does)",
        ),
        (
            _with(_comment(), "issue.pull_request", _DROP),
            "the comment is on an issue, not a pull request",
        ),
        (
            _with(_comment(), "issue.pull_request", None),
            "the comment is on an issue, not a pull request",
        ),
        (
            _with(_comment(), "comment.user.type", "Bot"),
            "comments by bots are not commands",
        ),
    ],
)
def test_a_comment_that_is_not_a_command_is_ignored_with_its_reason(
    event: dict[str, Any], reason: str
) -> None:
    assert _ignored(intake("issue_comment", "d-2", event)) == reason


def test_an_edit_adding_a_command_to_an_issue_is_ignored_as_an_edit() -> None:
    """The first reason that applies is the one GitHub's delivery log shows."""
    edited = dict(_with(_comment(), "issue.pull_request", _DROP), action="edited")
    reason = "only new comments carry commands (an edit never does)"
    assert _ignored(intake("issue_comment", "d-2", edited)) == reason


def test_a_comment_by_a_user_of_no_stated_type_counts() -> None:
    event = _with(_comment(), "comment.user.type", _DROP)
    assert isinstance(intake("issue_comment", "d-2", event), Job)
    event = _with(_comment(), "comment.user.type", "Organization")
    assert isinstance(intake("issue_comment", "d-2", event), Job)


def test_a_comment_without_an_installation_is_malformed() -> None:
    with pytest.raises(Malformed) as caught:
        intake("issue_comment", "d-2", on_pull_request(payload("issue_comment/created")))
    assert str(caught.value) == "issue_comment payload: installation: Field required"


def test_the_pr_a_comment_is_on_is_read_for_its_known_head() -> None:
    assert pr_number("issue_comment", _comment()) == ("Codertocat/Hello-World", 2)
    assert pr_number("issue_comment", on_pull_request(_comment(), number=7)) == (
        "Codertocat/Hello-World",
        7,
    )
    assert pr_number("pull_request", payload("pull_request/opened")) is None
    assert pr_number("check_run", payload("check_run/rerequested")) is None
    # a comment intake will refuse has no PR to look up, and raises nothing here
    assert pr_number("issue_comment", payload("issue_comment/created")) is None


# --- check_run / check_suite --------------------------------------------------------------------


def test_re_run_on_a_check_run_is_a_recheck_of_its_pr() -> None:
    event = payload("check_run/rerequested")
    event["check_run"]["check_suite"]["pull_requests"] = [{"number": 4}, {"number": 9}]
    job = intake("check_run", "d-3", event)
    assert isinstance(job, Job)
    assert job.kind is Kind.RERUN and job.id == "d-3" and job.body == "/recheck"
    assert job.pr.number == 4 and job.pr.repo == event["repository"]["full_name"]
    assert job.pr.installation == event["installation"]["id"]
    assert job.pr.clone_url == event["repository"]["clone_url"]
    assert job.head_sha == event["check_run"]["head_sha"]
    assert job.sender == event["sender"]["login"]


def test_re_run_all_on_a_check_suite_is_a_recheck_all_of_its_pr() -> None:
    event = payload("check_suite/rerequested")
    job = intake("check_suite", "d-4", event)
    assert job == Job(
        id="d-4",
        kind=Kind.RERUN,
        pr=PullRequest(
            repo=event["repository"]["full_name"],
            number=2,
            installation=957387,
            clone_url=event["repository"]["clone_url"],
        ),
        head_sha=event["check_suite"]["head_sha"],
        sender=event["sender"]["login"],
        body="/recheck all",
    )


def test_a_check_run_carries_its_own_head_not_its_suites() -> None:
    event = payload("check_run/rerequested")
    event["check_run"]["check_suite"]["pull_requests"] = [{"number": 4}]
    event["check_run"]["check_suite"]["head_sha"] = BASE  # they agree on GitHub; this one counts
    job = intake("check_run", "d-3", event)
    assert isinstance(job, Job) and job.head_sha == event["check_run"]["head_sha"] != BASE


def test_a_forks_re_run_finds_its_pr_by_the_head_the_server_recorded() -> None:
    """GitHub lists no pull request in a fork's check suite."""
    event = payload("check_run/rerequested")
    head = event["check_run"]["head_sha"]
    asked: list[tuple[str, str]] = []

    def pr_of_head(repo: str, sha: str) -> int | None:
        asked.append((repo, sha))
        return 5 if sha == head else None

    job = intake("check_run", "d-3", event, pr_of_head=pr_of_head)
    assert isinstance(job, Job) and job.pr.number == 5
    assert asked == [(event["repository"]["full_name"], head)]


def test_a_listed_pr_is_taken_without_asking_the_server() -> None:
    event = payload("check_suite/rerequested")

    def pr_of_head(repo: str, sha: str) -> int | None:
        raise AssertionError("asked")

    job = intake("check_suite", "d-4", event, pr_of_head=pr_of_head)
    assert isinstance(job, Job) and job.pr.number == 2


def test_a_re_run_of_a_head_no_pr_has_is_ignored() -> None:
    event = payload("check_run/rerequested")  # its suite lists no pull request
    reason = "check_run: no pull request gradgate knows has this head"
    assert _ignored(intake("check_run", "d-3", event)) == reason
    assert _ignored(intake("check_run", "d-3", event, pr_of_head=lambda r, s: None)) == reason


@pytest.mark.parametrize(
    ("event", "name", "action"),
    [
        ("check_run", "check_run/rerequested", "requested_action"),
        ("check_run", "check_run/rerequested", "completed"),
        ("check_suite", "check_suite/requested", "requested"),
    ],
)
def test_only_a_re_run_request_starts_a_run(event: str, name: str, action: str) -> None:
    body = dict(payload(name), action=action)
    reason = f"{event} {body['action']!r}: only a re-run request starts a run"
    assert _ignored(intake(event, "d-3", body, pr_of_head=lambda r, s: 2)) == reason


def test_a_re_run_naming_no_suite_is_malformed() -> None:
    event = payload("check_suite/rerequested")
    del event["check_suite"]
    with pytest.raises(Malformed) as caught:
        intake("check_suite", "d-4", event)
    assert str(caught.value) == "check_suite payload: check_suite: Field required"


def test_a_re_run_without_a_sender_is_malformed() -> None:
    event = payload("check_run/rerequested")
    del event["sender"]
    with pytest.raises(Malformed) as caught:
        intake("check_run", "d-3", event)
    assert str(caught.value) == "check_run payload: sender: Field required"


def test_a_re_run_with_a_bad_pr_number_is_malformed() -> None:
    event = payload("check_suite/rerequested")
    event["check_suite"]["pull_requests"] = [{"number": 0}]
    with pytest.raises(Malformed, match=r"^check_suite payload: check_suite\.pull_requests\.0"):
        intake("check_suite", "d-4", event)


# --- other events -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "name"),
    [("ping", "ping/"), ("installation", "installation/created"), ("push", "ping/")],
)
def test_an_event_gradgate_does_not_act_on_is_ignored_whatever_it_holds(
    event: str, name: str
) -> None:
    reason = f"event {event!r} is not one gradgate acts on"
    assert _ignored(intake(event, "d-5", payload(name))) == reason
    assert _ignored(intake(event, "d-5", {})) == reason


# --- fields GitHub may leave out ----------------------------------------------------------------


def test_a_push_without_its_times_or_replaced_head_still_runs_with_none() -> None:
    event = _with(payload("pull_request/synchronize"), "pull_request.updated_at", _DROP)
    del event["before"]
    job = intake("pull_request", "d-1", event)
    assert isinstance(job, Job) and job.at is None and job.before is None
    assert job.head_sha == HEAD


def test_a_comment_without_its_time_is_a_job_at_no_time() -> None:
    event = _comment()
    del event["comment"]["created_at"]
    job = intake("issue_comment", "d-2", event)
    assert isinstance(job, Job) and job.at is None


def test_a_suite_that_lists_no_pull_requests_field_asks_the_server() -> None:
    event = payload("check_suite/rerequested")
    del event["check_suite"]["pull_requests"]
    job = intake("check_suite", "d-4", event, pr_of_head=lambda repo, sha: 3)
    assert isinstance(job, Job) and job.pr.number == 3
    reason = "check_suite: no pull request gradgate knows has this head"
    assert _ignored(intake("check_suite", "d-4", event)) == reason
