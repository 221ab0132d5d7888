"""checks.model.turns: a check starts both revisions' children at once, then asks base, then
head, one request at a time; a served child frees what a request left behind and answers the
next one the same.

Real git repos, real torch, real children. The order is read from a session that notes when
each request is asked and answered (the real session underneath)."""

from __future__ import annotations

import platform
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import Outcome
from gradgate.checks.context import CheckContext
from gradgate.checks.data.check import DataCheck
from gradgate.checks.data.settings import DataSettings
from gradgate.checks.data.spec import DataSpec
from gradgate.checks.gradient.check import GradientCheck
from gradgate.checks.model.session import ModelSessions

from tests.checks.gradient.revisions import commit_two
from tests.gitrepo import GitRepo

MODEL = """\
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)), torch.randn(3, 4)
"""
TRANSFORM = """\
def build():
    def transform(image):
        return image[[2, 1, 0]].float() / 255
    return transform
"""


class Noted(ModelSessions):
    """A gate's sessions that note each request's revision as it is asked and answered, with
    how many children had been started when it was answered."""

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []

    def run_entry(self, ctx: CheckContext, settings: Any, *, revision: str, **kw: Any) -> Any:
        self.notes.append(f"{revision} asked")
        try:
            return super().run_entry(ctx, settings, revision=revision, **kw)
        finally:
            self.notes.append(f"{revision} answered ({self.started} started)")


IN_TURN = ["base asked", "base answered (2 started)", "head asked", "head answered (2 started)"]


def test_the_gradient_check_starts_both_children_then_asks_base_and_head_in_turn(
    tmp_path: Path,
) -> None:
    revisions = commit_two(GitRepo(tmp_path), {"model.py": MODEL}, {"model.py": MODEL + "\n"})
    with Noted() as sessions:
        result = GradientCheck().run(replace(revisions.context(), models=sessions))

    assert result.outcome is Outcome.PASS, result
    assert sessions.notes == IN_TURN


def test_the_data_check_starts_both_children_then_asks_base_and_head_in_turn(
    tmp_path: Path,
) -> None:
    repo = GitRepo(tmp_path)
    base, head = repo.pull_request({"pipeline.py": TRANSFORM}, {"pipeline.py": TRANSFORM + "\n"})
    with Noted() as sessions:
        ctx = CheckContext(
            base_sha=base, head_sha=head, changes=(), source=GitRepository(repo.root),
            settings=DataSettings(timeout_s=120.0, memory_mb=2048), python=sys.executable,
            data=DataSpec(entrypoint="pipeline.py:build"), models=sessions,
        )  # fmt: skip
        result = DataCheck().run(ctx)

    assert result.outcome is Outcome.PASS, result
    assert sessions.notes == IN_TURN


def test_a_served_childs_second_request_after_the_trim_gets_the_same_answer(
    tmp_path: Path,
) -> None:
    revisions = commit_two(
        GitRepo(tmp_path),
        {"model.py": MODEL},
        {"model.py": MODEL.replace("nn.ReLU()", "nn.Tanh()")},
    )
    with ModelSessions() as sessions:
        ctx = replace(revisions.context(), models=sessions)
        first = GradientCheck().run(ctx)
        second = GradientCheck().run(replace(ctx, isolations=[]))

    assert first.outcome is Outcome.PASS, first
    assert second.extra["parameters"] == first.extra["parameters"]
    assert sessions.started == 2  # the same two children answered both checks


def test_freeing_after_a_request_leaves_torch_working() -> None:
    from gradgate.checks.model.child.serve import free

    def step() -> list[float]:
        torch.manual_seed(0)
        layer = torch.nn.Linear(256, 256)
        layer(torch.randn(64, 256)).sum().backward()
        assert layer.weight.grad is not None
        return layer.weight.grad[0, :4].tolist()

    before = step()
    free()
    assert step() == before


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_a_served_child_finds_glibcs_malloc_trim() -> None:
    from gradgate.checks.model.child import serve

    assert serve._malloc_trim() is not None
