"""One verdict per commit, in the Action (issue 34): the PR branch merges `gh-pages` (unrelated
history, no `.gradgate.yml`) and edits a protected line; the same head is open as #7 into main
(it fails) and as #8 into gh-pages (not gated there). Whichever PR's run publishes last, the
commit shows #7's failure, with check runs or with statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gradgate.bot.github.results import PLAN_FILE

from tests.bot.doors.action.trust_world import FORK, fork, fork_run, gate_and_publish
from tests.bot.doors.action.world import NUMBER, REPO, TRAIN, World, read_json
from tests.fakegithub import payloads

PAGES = 8
EDITED = TRAIN.replace("runs/v3", "runs/v4")


def open_pages_pr(world: World) -> str:
    repo = world.repo
    repo.git("checkout", "-q", "--orphan", "gh-pages")
    repo.git("rm", "-r", "-q", "-f", ".")
    repo.write("index.html", "<p>docs</p>\n")
    repo.commit("pages")
    repo.checkout("pr")
    repo.git("merge", "-q", "--allow-unrelated-histories", "-m", "merge pages", "gh-pages")
    head = world.push(EDITED, "edit a protected line")
    repo.git("branch", "pages-pr", head)
    world.github.open_pull(REPO, PAGES, head=head, base=repo.git("rev-parse", "gh-pages"),
                           author="alice", head_ref="pages-pr", base_ref="gh-pages")  # fmt: skip
    return head


def run(world: World, number: int, action: str = "opened") -> int:
    if number == NUMBER:
        return world.pull_request(action)
    pull = world.github.repo(REPO).pulls[number]
    payload = payloads.pull_request(
        action, repo=REPO, number=number, head=pull.head_sha, base=pull.base_sha,
        author="alice", head_ref=pull.head_ref, base_ref=pull.base_ref,
    )  # fmt: skip
    return world.action("pull_request", payload)


def shown(world: World, sha: str, name: str = "gradgate") -> tuple[str, str]:
    """What GitHub shows for ``name`` on ``sha``: a check run's conclusion and title, else a
    status's state and description."""
    repo = world.github.repo(REPO)
    runs = repo.latest_check_runs(sha)
    if name in runs:
        return runs[name].conclusion or runs[name].status, runs[name].title or ""
    status = repo.latest_statuses(sha)[name]
    return status.state, status.description or ""


@pytest.fixture(params=["statuses", "check-runs"])
def mode(request: pytest.FixtureRequest, world: World) -> str:
    if request.param == "check-runs":
        world.token = world.github.token(checks=True)
    return str(request.param)


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_a_second_pr_into_a_branch_without_config_cannot_turn_the_commit_green(
    world: World, mode: str, first: int
) -> None:
    head = both_run(world, first)
    state, words = shown(world, head)
    assert state == "failure"
    assert words.startswith(f"#{NUMBER} into main (worst of 2 open PRs)")
    assert shown(world, head, "gradgate/protected")[0] == "failure"


def test_alone_a_pr_into_a_branch_without_config_never_reads_as_success(
    world: World, mode: str
) -> None:
    head = open_pages_pr(world)
    world.github.repo(REPO).pulls[NUMBER].state = "closed"
    assert run(world, PAGES) == 0
    state, words = shown(world, head)
    assert state == NOT_GATED[mode]
    assert words.startswith("not gated here: gh-pages has no .gradgate.yml")
    assert shown(world, head, "gradgate/protected")[0] != "success"


def test_a_pr_into_main_not_judged_yet_holds_the_commit_pending_not_neutral(
    world: World, mode: str
) -> None:
    # GitHub's branch protection accepts a `neutral` check run for a required check: #8's
    # "not gated here" must not stand for #7 before #7's own run has judged the head (its run
    # still going, or a fork's run for it that never came).
    head = open_pages_pr(world)
    assert run(world, PAGES) == 0

    state, words = shown(world, head)
    assert state == {"statuses": "pending", "check-runs": "in_progress"}[mode]
    assert words.startswith(f"#{NUMBER} into main (worst of 2 open PRs, not judged yet)")

    run(world, NUMBER)
    assert shown(world, head)[0] == "failure"


def both_run(world: World, first: int) -> str:
    head = open_pages_pr(world)
    for number in (first, PAGES if first == NUMBER else NUMBER):
        run(world, number)
    return head


NOT_GATED = {"statuses": "pending", "check-runs": "neutral"}


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_closing_the_failing_pr_leaves_the_other_ones_not_gated_verdict(
    world: World, mode: str, first: int
) -> None:
    head = both_run(world, first)
    world.github.repo(REPO).pulls[NUMBER].state = "closed"

    assert run(world, NUMBER, "closed") == 0

    state, words = shown(world, head)
    assert state == NOT_GATED[mode] and "not gated here" in words


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_closing_the_pr_into_gh_pages_leaves_the_failure(
    world: World, mode: str, first: int
) -> None:
    head = both_run(world, first)
    world.github.repo(REPO).pulls[PAGES].state = "closed"

    assert run(world, PAGES, "closed") == 0

    assert shown(world, head)[0] == "failure"


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_pushing_over_the_failing_pr_weighs_its_old_head_again(
    world: World, mode: str, first: int
) -> None:
    old = both_run(world, first)
    new = world.push(TRAIN, "put it back")
    payload = payloads.pull_request("synchronize", repo=REPO, number=NUMBER, head=new,
                                    base=world.base, author="alice", head_ref="pr")  # fmt: skip
    payload["before"] = old

    assert world.action("pull_request", payload) == 0

    assert shown(world, old)[0] == NOT_GATED[mode]  # only #8 has it as head now
    assert shown(world, new)[0] == "success"


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_pushing_over_the_pr_into_gh_pages_leaves_the_failure_on_the_old_head(
    world: World, mode: str, first: int
) -> None:
    old = both_run(world, first)
    world.repo.checkout("pages-pr")
    world.repo.write("index.html", "<p>more docs</p>\n")
    new = world.repo.commit("docs")
    world.github.repo(REPO).pulls[PAGES].head_sha = new
    pull = world.github.repo(REPO).pulls[PAGES]
    payload = payloads.pull_request("synchronize", repo=REPO, number=PAGES, head=new,
                                    base=pull.base_sha, author="alice", head_ref="pages-pr",
                                    base_ref="gh-pages")  # fmt: skip
    payload["before"] = old

    assert world.action("pull_request", payload) == 0

    assert shown(world, old)[0] == "failure"
    assert shown(world, new)[0] == NOT_GATED[mode]


# -- the fork-safe pair: which pull request a fork's upload may name ---------------------------


def twin_fork_prs(world: World) -> Path:
    """A fork's branch, open as #7 and again as #8 with the same head; its own run (whose upload
    names #7) has run, and the trusted side has published #7 from it."""
    fork(world)
    world.push(EDITED)
    world.github.open_pull(REPO, PAGES, head=world.head, base=world.base, author="mallory",
                           head_ref="pr", head_repo=FORK)  # fmt: skip
    uploaded = world.tmp / "uploaded"
    fork_run(world, uploaded)
    assert gate_and_publish(world, uploaded) == 0
    assert len(world.github.comments(REPO, NUMBER)) == 1
    return uploaded


def test_the_trusted_side_refuses_an_upload_naming_a_pr_judged_while_its_twin_is_not(
    world: World,
) -> None:
    uploaded = twin_fork_prs(world)

    assert gate_and_publish(world, uploaded) == 2  # #8's run, whose upload names #7 again

    state, words = shown(world, world.head)
    assert state == "failure" and "already judged" in words  # an error, never a pass
    assert world.github.comments(REPO, PAGES) == []


def test_the_trusted_side_takes_an_upload_naming_the_twin_not_yet_judged(world: World) -> None:
    uploaded = twin_fork_prs(world)
    record = read_json(uploaded / PLAN_FILE)
    (uploaded / PLAN_FILE).write_text(json.dumps(record | {"pr": PAGES}))

    assert gate_and_publish(world, uploaded) == 0

    assert len(world.github.comments(REPO, PAGES)) == 1
    assert shown(world, world.head)[0] == "failure"
