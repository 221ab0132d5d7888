"""One verdict per commit, in the App (issue 34): the PR branch merges `gh-pages` (unrelated
history, no `.gradgate.yml`) and edits a protected line; the same head is open as #7 into main
(it fails) and as #8 into gh-pages (not gated there). The commit shows the failure whichever PR
is judged first, and a PR stops counting once it is closed or pushed over."""

from __future__ import annotations

import pytest

from tests.bot.app.world import BOT, EDITED, NUMBER, REPO, TRAIN, AppWorld

PAGES = 8  # the second PR, into gh-pages
POLICY = "zones:\n  - name: training\n    paths: [train.py]\n    checks: [protected]\n"


@pytest.fixture
def policy() -> str:
    return POLICY


@pytest.fixture(autouse=True)
def _pages_pull(world: AppWorld) -> None:
    """The PR branch merges gh-pages and edits a protected line; its head is open as #8 too."""
    origin = world.origin
    origin.git("checkout", "-q", "--orphan", "gh-pages")
    origin.git("rm", "-r", "-q", "-f", ".")
    origin.write("index.html", "<p>docs</p>\n")
    origin.commit("pages")
    origin.checkout("pr")
    origin.git("merge", "-q", "--allow-unrelated-histories", "-m", "merge pages", "gh-pages")
    head = world.push(EDITED, message="edit a protected line")
    origin.git("branch", "pages-pr", head)
    origin.git("update-ref", f"refs/pull/{PAGES}/head", head)
    world.github.open_pull(REPO, PAGES, head=head, base=origin.git("rev-parse", "gh-pages"),
                           author="alice", head_ref="pages-pr", base_ref="gh-pages")  # fmt: skip
    origin.checkout("main")


def deliver(world: AppWorld, number: int, action: str, *, before: str | None = None) -> None:
    payload = world.push_payload(action, number=number)
    if before is not None:
        payload["before"] = before
    assert world.live.deliver("pull_request", payload).status_code == 202
    world.drain()


def shown(world: AppWorld, sha: str) -> tuple[str, str]:
    """The overall check run GitHub shows on ``sha``: its conclusion and title."""
    run = world.github.repo(REPO).latest_check_runs(sha)["gradgate"]
    return run.conclusion or run.status, run.title or ""


def both_judged(world: AppWorld, first: int) -> str:
    head = world.head
    for number in (first, PAGES if first == NUMBER else NUMBER):
        deliver(world, number, "opened")
    return head


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_a_second_pr_into_a_branch_without_config_cannot_turn_the_commit_green(
    world: AppWorld, first: int
) -> None:
    head = both_judged(world, first)
    conclusion, title = shown(world, head)
    assert conclusion == "failure"
    assert title.startswith(f"#{NUMBER} into main (worst of 2 open PRs)")
    assert world.check_runs(head)["gradgate/protected"] == "failure"
    [own] = world.github.comments(REPO, PAGES, by=BOT)
    assert "came from the change itself" in own.body  # #8's comment is its own report


def test_alone_a_pr_into_a_branch_without_config_is_neutral_never_success(
    world: AppWorld,
) -> None:
    world.github.repo(REPO).pulls[NUMBER].state = "closed"
    deliver(world, PAGES, "opened")
    conclusion, title = shown(world, world.head)
    assert conclusion == "neutral"
    assert title.startswith("not gated here: gh-pages has no .gradgate.yml")
    assert "success" not in world.check_runs(world.head).values()


def test_a_pr_into_main_not_judged_yet_holds_the_commit_pending_not_neutral(
    world: AppWorld,
) -> None:
    # GitHub's branch protection accepts a `neutral` check run for a required check: #8's
    # "not gated here" must not stand for #7 before #7's own job has judged the head.
    head = world.head
    deliver(world, PAGES, "opened")
    status, title = shown(world, head)
    assert status == "in_progress"
    assert title.startswith(f"#{NUMBER} into main (worst of 2 open PRs, not judged yet)")

    deliver(world, NUMBER, "opened")
    assert shown(world, head)[0] == "failure"


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_closing_the_failing_pr_leaves_the_other_ones_not_gated_verdict(
    world: AppWorld, first: int
) -> None:
    head = both_judged(world, first)
    world.github.repo(REPO).pulls[NUMBER].state = "closed"
    deliver(world, NUMBER, "closed")
    assert shown(world, head)[0] == "neutral"


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_closing_the_pr_into_gh_pages_leaves_the_failure(world: AppWorld, first: int) -> None:
    head = both_judged(world, first)
    world.github.repo(REPO).pulls[PAGES].state = "closed"
    deliver(world, PAGES, "closed")
    conclusion, title = shown(world, head)
    assert conclusion == "failure" and not title.startswith("#")  # one open PR: no origin


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_pushing_over_the_failing_pr_weighs_its_old_head_again(world: AppWorld, first: int) -> None:
    old = both_judged(world, first)
    world.origin.checkout("pr")
    new = world.push(TRAIN, message="put it back")
    world.origin.checkout("main")
    deliver(world, NUMBER, "synchronize", before=old)
    assert shown(world, old)[0] == "neutral"  # only #8 has it as head now
    assert shown(world, new)[0] == "success"  # #7's new head, into main, passes


@pytest.mark.parametrize("first", [NUMBER, PAGES], ids=["main-first", "pages-first"])
def test_pushing_over_the_pr_into_gh_pages_leaves_the_failure_on_the_old_head(
    world: AppWorld, first: int
) -> None:
    old = both_judged(world, first)
    origin = world.origin
    origin.checkout("pages-pr")
    origin.write("index.html", "<p>more docs</p>\n")
    new = origin.commit("docs")
    origin.git("update-ref", f"refs/pull/{PAGES}/head", new)
    origin.checkout("main")
    world.github.repo(REPO).pulls[PAGES].head_sha = new
    deliver(world, PAGES, "synchronize", before=old)
    assert shown(world, old)[0] == "failure"
    assert shown(world, new)[0] == "neutral"
