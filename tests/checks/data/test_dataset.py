"""A `data` entrypoint that returns a dataset: the child program run in this process on a real
file of a temporary revision, then judged as the check judges it; one run end to end."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.context import CheckContext
from gradgate.checks.data.check import DataCheck
from gradgate.checks.data.problems import describe
from gradgate.checks.data.settings import DataSettings
from gradgate.checks.data.spec import DataSpec

from tests.checks.data import running
from tests.gitrepo import GitRepo

DATASET = """\
import torch
from torch.utils.data import Dataset

CLASSES = ["cat", "dog", "bird"]


class Shapes(Dataset):
    def __init__(self):
        self.classes = CLASSES
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}
        self.samples = [("cat", 1.0), ("dog", 2.0), ("bird", 3.0), ("cat", 4.0), ("dog", 5.0)]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        name, level = self.samples[index]
        return torch.full((3, 4, 4), level), self.class_to_idx[name]


def build():
    return RETURNED
"""


def source(returned: str = "Shapes()", classes: str = '["cat", "dog", "bird"]') -> str:
    text = DATASET.replace("RETURNED", returned)
    return text.replace('CLASSES = ["cat", "dog", "bird"]', f"CLASSES = {classes}")


def run_child(tmp_path: Path, text: str, *, indices: list[int] | None = None) -> Any:
    spec = {} if indices is None else {"indices": indices}
    return running.run_child(tmp_path, text, forms=["tensor"], **spec)


def test_a_dataset_is_read_at_the_first_items_with_its_classes(tmp_path: Path) -> None:
    value = run_child(tmp_path, source())
    assert value["form"] == "dataset"
    assert value["labels"] == [f"index {i}" for i in range(5)]
    assert value["classes"] == {"cat": 0, "dog": 1, "bird": 2}
    image, label = value["runs"][2][0]["output[0]"], value["runs"][2][0]["output[1]"]
    assert image["shape"] == [3, 4, 4] and image["values"][0] == 3.0
    assert label["values"] == [2.0]


@pytest.mark.parametrize(
    ("returned", "indices", "read"),
    [
        ("(Shapes(), [4, 1])", None, ["index 4", "index 1"]),
        ('{"dataset": Shapes(), "indices": [3]}', None, ["index 3"]),
        ("Shapes()", [0, 2], ["index 0", "index 2"]),  # from the `data:` block
    ],
)
def test_the_indices_come_from_the_factory_or_the_config(
    tmp_path: Path, returned: str, indices: list[int] | None, read: list[str]
) -> None:
    assert run_child(tmp_path, source(returned), indices=indices)["labels"] == read


@pytest.mark.parametrize(
    ("returned", "code"),
    [
        ('(Shapes(), "first")', "bad-indices"),
        ('{"dataset": Shapes(), "indices": [-1]}', "bad-indices"),
        ('{"dataset": Shapes(), "transform": abs}', "both"),
    ],
)
def test_unusable_indices_are_a_problem_named(tmp_path: Path, returned: str, code: str) -> None:
    assert run_child(tmp_path, source(returned))["problem"]["code"] == code


def test_reordered_classes_are_reported_from_the_dataset(tmp_path: Path) -> None:
    base = run_child(tmp_path, source())
    head = run_child(tmp_path, source(classes='sorted(["cat", "dog", "bird"])'))
    result = DataCheck().judge(base, head, DataSettings())
    assert result.outcome is Outcome.FAIL
    messages = [f.message for f in result.findings]
    assert any(
        "class-index mapping changed: `cat` 0 → 1, `dog` 1 → 2, `bird` 2 → 0" in m for m in messages
    )
    assert any(
        "class indices renumbered: base 0 → head 1, base 1 → head 2, base 2 → head 0" in m
        for m in messages
    )


def test_a_dataset_entrypoint_end_to_end(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path)
    head = source().replace('("bird", 3.0)', '("dog", 3.0)')
    base_sha, head_sha = repo.pull_request({"pipeline.py": source()}, {"pipeline.py": head})
    ctx = CheckContext(
        base_sha=base_sha,
        head_sha=head_sha,
        changes=(),
        source=GitRepository(repo.root),
        settings=DataSettings(timeout_s=120.0, memory_mb=2048),
        python=sys.executable,
        data=DataSpec(entrypoint="pipeline.py:build", indices=(1, 2)),
    )
    result = DataCheck().run(ctx)
    assert result.outcome is Outcome.FAIL, result
    assert "input: dataset" in result.summary
    (finding,) = result.findings
    assert finding.severity is Severity.BLOCKING
    assert "targets changed for 1 of 2 samples (index 2: 2 → 1)" in finding.message


@pytest.mark.parametrize(
    ("problem", "words"),
    [
        ({"code": "bad-indices", "got": "'first'"}, "gave `indices` as 'first'"),
        ({"code": "both"}, "returned both a `transform` and a `dataset`"),
        ({"code": "no-items", "got": "[0, 1]"}, "no item at the indices read ([0, 1])"),
    ],
)
def test_dataset_problems_are_worded_with_the_factory(problem: dict[str, str], words: str) -> None:
    text = describe(problem, "`pipeline.py:build` at head")
    assert text.startswith("`pipeline.py:build` at head")
    assert words in text
