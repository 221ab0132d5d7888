"""`report.review` end to end: `gradgate action` on a real repository, the checks in a child
process without credentials, and the review through PyGithub on the fake GitHub, which takes
inline comments only on lines of the pull request's diff (computed by `git diff`, as GitHub
shows it)."""

from __future__ import annotations

import pytest
from gradgate.bot.github.results import PLAN_FILE
from gradgate.bot.github.review import REVIEW_MARKER

from tests.bot.doors.action.world import NUMBER, REPO, TRAIN, World, read_json
from tests.fakegithub import BOT
from tests.fakegithub.diffs import commentable

POLICY = """\
report:
  review: {mode}
zones:
  - name: training
    paths: ["train.py"]
    checks: [protected]
  - name: docs
    paths: ["README.md", "configs/**"]
    checks: [config-docs]
"""
TRAIN_BASE = 'EPOCHS = 3\n# NO_REFAC\nRUNS = "runs/v3"\n'
# Two lines above, so head line numbers differ from base ones; the protected statement edited.
TRAIN_HEAD = 'import os\n\nEPOCHS = 3\n# NO_REFAC\nRUNS = "runs/v4"\n'
README_BASE = (
    "# tiny\n\nThe default recipe trains with `batch_size: 32`.\n\nLearning rate: `lr: 0.1`.\n"
)
# A paragraph above, and the batch size the PR now claims disagrees with the config.
README_HEAD = (
    "# tiny\n\nTrains a tiny model.\n\nThe default recipe trains with `batch_size: 16`.\n\n"
    "Learning rate: `lr: 0.1`.\n"
)
CONFIG = "batch_size: 32\nlr: 3.0e-4\n"


def reviewing(world: World, mode: str) -> World:
    """The base commit gets the review policy and files; the PR one commit that breaks both."""
    repo = world.repo
    repo.checkout("main")
    repo.write(".gradgate.yml", POLICY.format(mode=mode))
    repo.write("train.py", TRAIN_BASE)
    repo.write("README.md", README_BASE)
    repo.write("configs/train.yaml", CONFIG)
    repo.commit("review policy")
    repo.checkout("pr")
    repo.git("reset", "-q", "--hard", "main")
    return push(world, {"train.py": TRAIN_HEAD, "README.md": README_HEAD})


def push(world: World, files: dict[str, str]) -> World:
    for path, text in files.items():
        world.repo.write(path, text)
    world.repo.commit("change")
    pull = world.github.repo(REPO).pulls[NUMBER]
    pull.head_sha, pull.base_sha = world.head, world.base
    diff = world.repo.git("diff", "--find-renames", f"{world.base}...{world.head}")
    pull.diff = commentable(diff)  # what GitHub shows, and takes comments on
    return world


def test_review_is_off_by_default(world: World) -> None:
    world.push(TRAIN.replace("runs/v3", "runs/v4"))

    assert world.pull_request() == 1

    assert world.github.requests(pattern="/reviews|/pulls/comments") == []
    assert world.github.reviews(REPO, NUMBER) == []


def test_comment_mode_posts_one_review_inline_on_changed_lines_the_rest_in_its_body(
    world: World,
) -> None:
    reviewing(world, "comment")

    assert world.pull_request() == 1

    (review,) = world.github.reviews(REPO, NUMBER)
    assert (review.author, review.state, review.commit_id) == (BOT, "COMMENTED", world.head)
    comments = world.github.review_comments(REPO, review.id)
    assert [(c.path, c.line, c.side) for c in comments] == [
        ("README.md", 5, "RIGHT"),
        ("train.py", 5, "RIGHT"),
    ]
    assert "`config-docs`" in comments[0].body and "`protected`" in comments[1].body
    # The pre-existing `lr` disagreement sits on a line the PR did not change: in the body.
    assert review.body.startswith(REVIEW_MARKER)
    assert "Not on a changed line:" in review.body and "`README.md:7`" in review.body
    assert "batch_size" not in review.body


def test_a_suggestion_replaces_exactly_the_head_line_it_is_on(world: World) -> None:
    reviewing(world, "comment")

    world.pull_request()

    (review,) = world.github.reviews(REPO, NUMBER)
    doc = next(c for c in world.github.review_comments(REPO, review.id) if c.path == "README.md")
    head_line = README_HEAD.splitlines()[doc.line - 1]
    assert head_line == "The default recipe trains with `batch_size: 16`."
    fixed = head_line.replace("16", "32")
    assert f"```suggestion\n{fixed}\n```" in doc.body


def test_the_next_run_clears_the_first_review(world: World) -> None:
    reviewing(world, "comment")
    world.pull_request()
    (first,) = world.github.reviews(REPO, NUMBER)

    push(world, {"train.py": TRAIN_BASE})  # the protected line restored; the docs still wrong
    assert world.pull_request() == 1

    old, new = world.github.reviews(REPO, NUMBER)
    assert old.id == first.id
    assert world.github.review_comments(REPO, old.id) == []
    assert not old.body.startswith(REVIEW_MARKER) and "Superseded" in old.body
    assert [c.path for c in world.github.review_comments(REPO, new.id)] == ["README.md"]


def test_request_changes_on_failure_and_dismissed_once_it_passes(world: World) -> None:
    reviewing(world, "request-changes")

    assert world.pull_request() == 1
    (review,) = world.github.reviews(REPO, NUMBER)
    assert review.state == "CHANGES_REQUESTED"
    assert len(world.github.review_comments(REPO, review.id)) == 2

    push(world, {"train.py": TRAIN_BASE, "README.md": README_BASE})  # both put back
    assert world.pull_request() == 0

    # Only the old `lr` note is left, off the diff: nothing to review, and no new review.
    reviews = world.github.reviews(REPO, NUMBER)
    assert [(r.id, r.state) for r in reviews] == [(review.id, "DISMISSED")]
    assert world.github.review_comments(REPO, review.id) == []


def test_a_protected_finding_is_annotated_and_reviewed_on_its_head_line(world: World) -> None:
    world.token = world.github.token(checks=True)  # the workflow grants `checks: write`
    reviewing(world, "comment")

    world.pull_request()

    runs = world.github.repo(REPO).latest_check_runs(world.head)
    annotations = runs["gradgate/protected"].annotations
    assert [(a["path"], a["start_line"], a["annotation_level"]) for a in annotations] == [
        ("train.py", 5, "failure")  # base line 2 (the marker); the edit is head line 5
    ]
    assert TRAIN_HEAD.splitlines()[4] == 'RUNS = "runs/v4"'
    (review,) = world.github.reviews(REPO, NUMBER)
    comments = world.github.review_comments(REPO, review.id)
    assert ("train.py", 5) in [(c.path, c.line) for c in comments]


def test_a_fan_out_publishes_the_review_its_plan_record_names(world: World) -> None:
    reviewing(world, "request-changes")
    results = world.tmp / "results"
    token, world.token = world.token, ""  # plan and check jobs: no token
    output = world.tmp / "github_output"
    world.env["GITHUB_OUTPUT"] = str(output)
    world.pull_request("synchronize", "--stage", "plan", "--results", str(results))
    for check in ("protected", "config-docs"):
        world.pull_request(
            "synchronize", "--stage", "check", "--check", check, "--results", str(results)
        )
    assert read_json(results / PLAN_FILE)["review"] == "request-changes"
    world.token = token

    assert world.pull_request("synchronize", "--stage", "publish", "--results", str(results)) == 0

    (review,) = world.github.reviews(REPO, NUMBER)
    assert review.state == "CHANGES_REQUESTED"
    comments = world.github.review_comments(REPO, review.id)
    assert [(c.path, c.line) for c in comments] == [("README.md", 5), ("train.py", 5)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_with_a_fifth_of_api_calls_failing_one_review_stands_and_stale_comments_go(
    world: World, seed: int
) -> None:
    reviewing(world, "request-changes")
    world.github.faults.chaos(0.2, seed=seed)

    def standing() -> list[int]:
        reviews = world.github.reviews(REPO, NUMBER)
        live = [
            r.id for r in reviews if r.body.startswith(REVIEW_MARKER) and r.state != "DISMISSED"
        ]
        stale = [r.id for r in reviews if r.id not in live]
        assert all(world.github.review_comments(REPO, i) == [] for i in stale)
        return live

    assert world.pull_request() == 1
    (first,) = standing()
    push(world, {"train.py": TRAIN_BASE})  # the docs still disagree
    assert world.pull_request() == 1
    (second,) = standing()
    assert second != first
    assert [c.path for c in world.github.review_comments(REPO, second)] == ["README.md"]
    push(world, {"README.md": README_BASE})
    assert world.pull_request() == 0
    assert standing() == []
    assert world.github.faults.injected > 0
