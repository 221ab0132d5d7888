"""The planner reads changed Python files once, for comment-only and gradient-sensitive edits."""

from __future__ import annotations

from collections import Counter

import pytest
from gradgate.bot.git.repository import GitRepository
from gradgate.bot.pipeline import Request, plan_request, python_edits
from gradgate.bot.plan.comment_only import MAX_FILES
from gradgate.bot.plan.plan import Plan, PlannedCheck, ReasonKind

from tests.gitrepo import GitRepo

POLICY = """\
zones:
  - name: model-core
    paths: ["models/**"]
    checks: [gradient]
"""

FEATURES = '''\
import torch


def features(backbone, x):
    """Backbone features for the head; see README for why not .detach()."""
    h = backbone(x)
    return h.flatten(1)


def evaluate(model, batch):
    with torch.no_grad():
        return model(batch)
'''

_FEATURES_FN, _EVALUATE_FN = FEATURES.removeprefix("import torch\n\n\n").split("\n\n\n")
EVALUATE_FIRST = f"import torch\n\n\n{_EVALUATE_FN}\n\n{_FEATURES_FN}\n"


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    repo.write(".gradgate.yml", POLICY)
    repo.write("models/net.py", "import torch\n")
    repo.write("utils/features.py", FEATURES)
    repo.commit("base")
    repo.branch("pr")
    return repo


def planned(repo: GitRepo) -> Plan:
    request = Request(repo_path=repo.root, base="main", head="pr")
    return plan_request(request, for_checks=False).plan


def gradient(plan: Plan) -> PlannedCheck:
    return next(c for c in plan.checks if c.name == "gradient")


def test_a_detach_added_outside_the_zones_runs_the_gradient_check(project: GitRepo) -> None:
    project.write("utils/features.py", FEATURES.replace("h.flatten(1)", "h.detach().flatten(1)"))
    project.commit("detach")
    check = gradient(planned(project))
    assert check.run
    assert [(r.kind, r.path, r.line, r.construct) for r in check.reasons] == [
        (ReasonKind.GRADIENT_SENSITIVE, "utils/features.py", 7, ".detach()")
    ]


def test_the_same_for_a_full_check_run(project: GitRepo) -> None:
    project.write(
        "utils/features.py", FEATURES.replace("    with torch.no_grad():\n", "    if True:\n")
    )
    project.commit("grad on in eval")
    request = Request(repo_path=project.root, base="main", head="pr")
    (reason,) = gradient(plan_request(request, for_checks=True).plan).reasons
    assert (reason.path, reason.line, reason.construct, reason.removed) == (
        "utils/features.py",
        11,
        "torch.no_grad",
        True,
    )


@pytest.mark.parametrize(
    ("name", "head"),
    [
        ("docstring mentions detach", FEATURES.replace("why not .detach()", "why no .detach()")),
        (
            "comment with detach",
            FEATURES.replace(
                "    h = backbone(x)\n", "    # h = h.detach()\n    h = backbone(x)\n"
            ),
        ),
        ("the no_grad function moved above", EVALUATE_FIRST),
    ],
)
def test_look_alikes_leave_the_gradient_check_to_its_zones(
    project: GitRepo, name: str, head: str
) -> None:
    project.write("utils/features.py", head)
    project.commit(name)
    check = gradient(planned(project))
    assert not check.run, (name, check.reasons)


def test_a_file_moved_with_its_no_grad_is_no_edit(project: GitRepo) -> None:
    project.move("utils/features.py", "utils/feats.py")
    project.commit("rename")
    assert not gradient(planned(project)).run


def test_each_changed_python_file_is_read_once_per_side(project: GitRepo) -> None:
    project.write("utils/features.py", FEATURES.replace("h.flatten(1)", "h.detach().flatten(1)"))
    project.write("models/net.py", "import torch  # the model\n")
    head = project.commit("two files")
    reads: Counter[tuple[str, str]] = Counter()

    class Counting(GitRepository):
        def read(self, revision: str, path: str) -> bytes | None:
            reads[revision, path] += 1
            return super().read(revision, path)

    with Counting(project.root) as git:
        base = git.merge_base("main", head)
        edits = python_edits(git, base, head, ["models/net.py", "utils/features.py"])
    assert edits.non_semantic == frozenset({"models/net.py"})
    assert [(e.path, e.line) for e in edits.gradient] == [("utils/features.py", 7)]
    assert set(reads.values()) == {1} and len(reads) == 4


def test_a_change_too_large_to_read_runs_the_gradient_check_without_reading(
    project: GitRepo,
) -> None:
    for i in range(MAX_FILES + 1):
        project.write(f"scripts/s{i:03d}.py", f"X = {i}\n")
    project.commit("many scripts")
    (reason,) = gradient(planned(project)).reasons
    assert (reason.kind, reason.path, reason.more) == (
        ReasonKind.GRADIENT_UNSCANNED,
        "scripts/s000.py",
        MAX_FILES + 1,  # every changed path: none was read
    )
