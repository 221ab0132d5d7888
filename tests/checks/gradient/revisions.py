"""Two revisions of a tiny model repo, committed in a real git repo, and the check's context."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import CheckResult
from gradgate.checks.context import CheckContext
from gradgate.checks.gradient.check import GradientCheck
from gradgate.checks.gradient.settings import GradientSettings
from gradgate.checks.model.spec import ModelSpec

from tests.gitrepo import GitRepo

# Quick and small: every scenario model is a few Linear layers.
SETTINGS = GradientSettings(timeout_s=120.0, memory_mb=2048, device="cpu")
FACTORY = "model.py:build"
PRELUDE = """\
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint
"""


@dataclass(frozen=True, slots=True)
class Revisions:
    repo: GitRepo
    base: str
    head: str

    def context(
        self, settings: GradientSettings = SETTINGS, spec: ModelSpec | None = None
    ) -> CheckContext:
        return CheckContext(
            base_sha=self.base,
            head_sha=self.head,
            changes=(),
            source=GitRepository(self.repo.root),
            settings=settings,
            python=sys.executable,
            model=spec or ModelSpec(entrypoint=FACTORY),
        )

    def check(self, settings: GradientSettings = SETTINGS, **settings_changes: Any) -> CheckResult:
        if settings_changes:
            settings = settings.model_copy(update=settings_changes)
        return GradientCheck().run(self.context(settings))


def commit_two(repo: GitRepo, base: Mapping[str, str], head: Mapping[str, str]) -> Revisions:
    """``base`` files committed, then ``head``'s written over them and committed."""
    return Revisions(repo, *repo.pull_request(base, head))


def states(result: CheckResult) -> dict[str, tuple[str | None, str | None, str | None]]:
    """Parameter name -> (state at base, state at head, change), from the result's extra."""
    return {
        row["name"]: (row["base"], row["head"], row["change"]) for row in result.extra["parameters"]
    }
