"""bot.github.checkruns and bot.github.outcome: check runs where the token allows, else statuses."""

from __future__ import annotations

import dataclasses
import re

import pytest
from gradgate.bot.github.checkruns import (
    SUMMARY_LIMIT,
    final_check_runs,
    pending_check_runs,
    superseded_check_runs,
)
from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy
from gradgate.bot.github.outcome import Pending, post_final, post_pending, post_superseded
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.errors import GitHubError

from tests.bot.github.reports import BASE, HEAD, finding, plan, report
from tests.fakegithub import FakeGitHub

REPO = "acme/model"
URL = "https://github.com/acme/model/actions/runs/1"
NEWER = "3333333" + "c" * 33
FAST = RetryPolicy(total=2, backoff_s=0.001, request_interval_s=0, write_interval_s=0)


def test_findings_on_head_lines_become_annotations_at_their_level() -> None:
    base_side = dataclasses.replace(finding(2), revision="base")  # line numbers of the base
    note = finding(3, severity=Severity.NOTE)
    no_line = dataclasses.replace(finding(4), line=None)

    runs = {
        r.name: r
        for r in final_check_runs(report(finding(1), base_side, note, no_line), details_url=URL)
    }

    protected = runs["gradgate/protected"]
    assert protected.conclusion == "failure"
    assert [(a.path, a.start_line, a.level) for a in protected.annotations] == [
        ("models/m1.py", 1, "failure"),
        ("models/m3.py", 3, "notice"),
    ]
    assert "4 findings" in protected.summary
    assert runs["gradgate"].conclusion == "failure"
    assert runs["gradgate/gradient"].conclusion == "skipped"
    assert all(r.external_id == f"gradgate:{HEAD}:{BASE}:abc123def456" for r in runs.values())


def test_a_base_finding_is_annotated_on_its_statement_s_head_line() -> None:
    moved = dataclasses.replace(
        finding(2), revision="base", head_file="models/renamed.py", head_line=9
    )

    (run,) = [r for r in final_check_runs(report(moved), details_url=URL) if r.annotations]

    assert [(a.path, a.start_line, a.end_line) for a in run.annotations] == [
        ("models/renamed.py", 9, 9)
    ]


def test_an_error_is_never_a_successful_check_run() -> None:
    runs = {r.name: r for r in final_check_runs(report(outcome=Outcome.ERROR), details_url=None)}

    assert runs["gradgate"].conclusion == "failure"
    assert runs["gradgate/protected"].conclusion == "failure"
    assert runs["gradgate"].title.startswith("gradgate could not decide")


def test_the_overall_summary_fits_a_check_run() -> None:
    big = report(*(finding(i, details_lines=40) for i in range(1, 72)))

    (overall,) = [r for r in final_check_runs(big, details_url=None) if r.name == "gradgate"]

    assert len(overall.summary) <= SUMMARY_LIMIT
    assert overall.summary.endswith("the pull request comment has all of it.*")


def test_pending_runs_are_in_progress_and_skipped_ones_are_done() -> None:
    runs = {
        r.name: r
        for r in pending_check_runs(
            plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
        )
    }

    assert runs["gradgate"].conclusion is None and runs["gradgate/protected"].conclusion is None
    assert runs["gradgate/gradient"].conclusion == "skipped"


@pytest.mark.parametrize("checks", [True, False])
def test_pending_then_final_completes_what_it_started(github: FakeGitHub, checks: bool) -> None:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    client = GitHubClient(
        Connection(api_url=github.url, token=github.token(checks=checks), repo=REPO, retry=FAST)
    )
    repo = github.repo(REPO)

    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )
    post_final(
        client, report(*(finding(i) for i in range(1, 121))), details_url=URL, pending=pending
    )

    if checks:  # check runs, completed in place, and no statuses
        assert pending.check_runs and set(pending.check_runs) == set(repo.latest_check_runs(HEAD))
        assert repo.statuses == []
        runs = repo.latest_check_runs(HEAD)
        assert {r.id for r in runs.values()} == set(pending.check_runs.values())
        assert runs["gradgate"].conclusion == "failure" and runs["gradgate"].status == "completed"
        assert len(runs["gradgate/protected"].annotations) == 120  # in batches of 50
        assert runs["gradgate/protected"].details_url == URL
    else:  # the token cannot write checks: statuses, and no check run at all
        assert pending.check_runs is None
        assert repo.check_runs == {}
        assert repo.latest_statuses(HEAD)["gradgate"].state == "failure"
        assert [r.status for r in github.requests("POST", "/check-runs$")] == [403]


@pytest.mark.parametrize("checks", [True, False])
def test_a_superseded_run_concludes_only_what_it_left_running_on_its_own_head(
    github: FakeGitHub, checks: bool
) -> None:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    client = GitHubClient(
        Connection(api_url=github.url, token=github.token(checks=checks), repo=REPO, retry=FAST)
    )
    repo = github.repo(REPO)
    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )
    assert set(pending.running) == {"gradgate", "gradgate/protected"}  # gradient: skipped, done
    repo.pulls[7].head_sha = NEWER

    post_superseded(client, pending, head_sha=HEAD, newer_head=NEWER, details_url=URL)

    words = "superseded by a newer push (3333333)"
    running = {"gradgate", "gradgate/protected"}
    if checks:  # the very check runs it started, cancelled; the skipped ones stay skipped
        runs = repo.latest_check_runs(HEAD)
        assert {n: r.conclusion for n, r in runs.items() if n in running} == dict.fromkeys(
            running, "cancelled"
        )
        assert {r.conclusion for n, r in runs.items() if n not in running} == {"skipped"}
        assert {r.status for r in runs.values()} == {"completed"}
        assert pending.check_runs is not None
        assert {r.id for r in runs.values()} == set(pending.check_runs.values())
        assert runs["gradgate"].title == words and runs["gradgate"].details_url == URL
        assert "`3333333` was pushed" in (runs["gradgate/protected"].summary or "")
        assert repo.statuses == []
    else:  # statuses: error, never success for what was not checked; skipped ones stay
        statuses = repo.latest_statuses(HEAD)
        assert {c: (s.state, s.description) for c, s in statuses.items() if c in running} == (
            dict.fromkeys(running, ("error", words))
        )
        assert {s.state for c, s in statuses.items() if c not in running} == {"success"}
    assert repo.latest_check_runs(NEWER) == {} and repo.latest_statuses(NEWER) == {}
    assert github.violations == []


def test_only_github_may_conclude_a_check_run_stale(github: FakeGitHub) -> None:
    """Why a superseded run is `cancelled`: GitHub refuses `stale` from anyone but itself."""
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    client = GitHubClient(
        Connection(api_url=github.url, token=github.token(checks=True), repo=REPO, retry=FAST)
    )
    [run] = superseded_check_runs(["gradgate"], head_sha=HEAD, newer_head=NEWER, details_url=URL)
    run_id = client.create_check_run(HEAD, dataclasses.replace(run, conclusion=None))

    with pytest.raises(GitHubError) as refused:
        client.update_check_run(run_id, dataclasses.replace(run, conclusion="stale"))
    assert refused.value.status == 422
    client.update_check_run(run_id, run)
    assert github.repo(REPO).check_runs[run_id].conclusion == "cancelled"


def test_a_check_that_waits_stays_in_progress_and_so_does_the_whole_run() -> None:
    """App mode: a check waiting for /ok-to-test or a GPU worker is no result yet, never a pass."""
    runs = {r.name: r for r in final_check_runs(report(outcome=Outcome.WAITING), details_url=URL)}

    assert runs["gradgate/protected"].conclusion is None  # in progress
    assert runs["gradgate"].conclusion is None
    assert runs["gradgate/gradient"].conclusion == "skipped"


@pytest.mark.parametrize("checks", [True, False])
def test_final_says_what_it_left_in_progress_so_the_next_run_can_conclude_it(
    github: FakeGitHub, checks: bool
) -> None:
    """A check waiting for a GPU worker stays in progress: ``post_final`` returns its ids (and
    every other's), which the GPU half completes, or concludes as superseded on the old head."""
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    client = GitHubClient(
        Connection(api_url=github.url, token=github.token(checks=checks), repo=REPO, retry=FAST)
    )
    repo = github.repo(REPO)
    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )

    left = post_final(client, report(outcome=Outcome.WAITING), details_url=URL, pending=pending)

    assert set(left.running) == {"gradgate", "gradgate/protected"}
    if checks:
        runs = repo.latest_check_runs(HEAD)
        assert left.check_runs == {name: r.id for name, r in runs.items()}
        assert {runs[n].status for n in left.running} == {"in_progress"}
    else:
        assert left.check_runs is None
        assert {repo.latest_statuses(HEAD)[c].state for c in left.running} == {"pending"}
    repo.pulls[7].head_sha = NEWER

    post_superseded(client, left, head_sha=HEAD, newer_head=NEWER, details_url=URL)

    if checks:
        runs = repo.latest_check_runs(HEAD)
        assert {runs[n].conclusion for n in left.running} == {"cancelled"}
        assert {r.status for r in runs.values()} == {"completed"}
    else:
        assert {repo.latest_statuses(HEAD)[c].state for c in left.running} == {"error"}
    # No pending phase: the final phase creates the check runs, and says which.
    fresh = post_final(client, report(head=NEWER, outcome=Outcome.WAITING), details_url=URL)
    if checks:
        assert fresh.check_runs == {n: r.id for n, r in repo.latest_check_runs(NEWER).items()}
    assert set(fresh.running) == {"gradgate", "gradgate/protected"}
    assert github.violations == []


def _client(github: FakeGitHub, *, checks: bool) -> GitHubClient:
    github.open_pull(REPO, 7, head=HEAD, base=BASE, author="alice")
    token = github.token(checks=checks)
    return GitHubClient(Connection(api_url=github.url, token=token, repo=REPO, retry=FAST))


def _failing(github: FakeGitHub, requests: str) -> None:
    """Every try of the next request matching ``requests`` fails with a 502."""
    github.faults.only = re.compile(requests)
    github.faults.fail_next(FAST.total + 1, status=502)


def test_check_runs_github_failed_to_create_are_not_replaced_by_statuses(
    github: FakeGitHub,
) -> None:
    """Only a 403 (no `checks: write`) switches to statuses; a 5xx is the pending phase's error,
    and the final phase still makes every check run."""
    client = _client(github, checks=True)
    _failing(github, r"^POST .*/check-runs$")

    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )

    assert (pending.check_runs, pending.running) == ({}, ())
    assert "could not create check run `gradgate`" in str(pending.error)
    assert github.repo(REPO).statuses == []
    left = post_final(client, report(finding(1)), details_url=URL, pending=pending)
    runs = github.repo(REPO).latest_check_runs(HEAD)
    assert runs["gradgate"].conclusion == "failure" and left.check_runs is not None
    assert set(left.check_runs) == set(runs) and left.running == ()


def test_statuses_github_failed_to_set_are_the_pending_phases_error(github: FakeGitHub) -> None:
    client = _client(github, checks=False)
    _failing(github, r"^POST .*/statuses/")

    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )

    assert pending.check_runs is None and pending.running == ("gradgate",)
    assert "could not set status `gradgate`" in str(pending.error)
    post_final(client, report(), details_url=URL, pending=pending)
    statuses = github.repo(REPO).latest_statuses(HEAD)
    assert {"gradgate", "gradgate/protected", "gradgate/gradient"} <= set(statuses)
    assert {s.state for s in statuses.values()} == {"success"}


def test_check_runs_that_cannot_be_completed_leave_error_statuses_never_the_verdict(
    github: FakeGitHub,
) -> None:
    client = _client(github, checks=True)
    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )
    assert pending.check_runs is not None
    _failing(github, rf"^PATCH .*/check-runs/{pending.check_runs['gradgate/protected']}$")

    with pytest.raises(GitHubError):
        post_final(client, report(), details_url=URL, pending=pending)

    statuses = github.repo(REPO).latest_statuses(HEAD)
    assert {"gradgate", "gradgate/protected", "gradgate/gradient"} <= set(statuses)
    assert {s.state for s in statuses.values()} == {"error"}
    assert statuses["gradgate"].description == (
        "gradgate could not publish its check runs (GitHub answered with an error); "
        "comment /recheck to try again"
    )


def test_a_superseded_run_concludes_every_check_run_it_can_then_says_which_failed(
    github: FakeGitHub,
) -> None:
    client = _client(github, checks=True)
    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )
    assert pending.check_runs is not None
    _failing(github, rf"^PATCH .*/check-runs/{pending.check_runs['gradgate']}$")

    with pytest.raises(GitHubError):
        post_superseded(client, pending, head_sha=HEAD, newer_head=NEWER, details_url=URL)

    runs = github.repo(REPO).latest_check_runs(HEAD)
    assert (runs["gradgate"].status, runs["gradgate/protected"].conclusion) == (
        "in_progress",
        "cancelled",
    )


def test_superseded_statuses_are_each_tried_and_the_first_failure_raised(
    github: FakeGitHub,
) -> None:
    client = _client(github, checks=False)
    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )
    _failing(github, r"^POST .*/statuses/")

    with pytest.raises(GitHubError):
        post_superseded(client, pending, head_sha=HEAD, newer_head=NEWER, details_url=URL)

    statuses = github.repo(REPO).latest_statuses(HEAD)
    assert {c: s.state for c, s in statuses.items() if c in pending.running} == {
        "gradgate": "pending",
        "gradgate/protected": "error",
    }


def test_a_final_phase_without_a_pending_one_that_cannot_create_check_runs_says_error(
    github: FakeGitHub,
) -> None:
    """A 5xx is no sign the token lacks `checks: write`: no switch to the report's statuses."""
    client = _client(github, checks=True)
    _failing(github, r"^POST .*/check-runs$")

    with pytest.raises(GitHubError, match="could not create check run"):
        post_final(client, report(), details_url=URL)

    statuses = github.repo(REPO).latest_statuses(HEAD)
    assert "gradgate" in statuses and {s.state for s in statuses.values()} == {"error"}


def test_a_pending_phase_that_went_well_reports_no_error_and_one_that_marked_nothing_leaves_nothing(
    github: FakeGitHub,
) -> None:
    client = _client(github, checks=False)
    pending = post_pending(
        client, plan(), head_sha=HEAD, base_sha=BASE, config_hash=None, details_url=URL
    )
    assert pending.error is None  # the Action says "pending failed" otherwise
    before = len(github.requests("POST"))

    post_superseded(client, Pending(None), head_sha=HEAD, newer_head=NEWER, details_url=URL)

    assert len(github.requests("POST")) == before


def test_a_report_without_a_head_is_refused_before_anything_is_published(
    github: FakeGitHub,
) -> None:
    client = _client(github, checks=True)
    headless = dataclasses.replace(report(), head_sha=None)

    with pytest.raises(
        ValueError, match=r"^a report published to GitHub names the head it was computed for$"
    ):
        post_final(client, headless, details_url=URL)
    assert github.repo(REPO).check_runs == {} and github.repo(REPO).statuses == []
