"""A change of the corpus (bench/_behaviour_models.py) committed in a real git repo, and the
behaviour check's result on it."""

from __future__ import annotations

import sys
from dataclasses import replace

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import CheckResult
from gradgate.checks.behaviour.check import BehaviourCheck
from gradgate.checks.behaviour.settings import BehaviourSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.model.spec import ModelSpec

from bench._behaviour_models import MODELS, Change, Model
from tests.checks.gradient.revisions import Revisions, commit_two
from tests.gitrepo import GitRepo

SETTINGS = BehaviourSettings(timeout_s=120.0, memory_mb=2048, device="cpu")


def context(revisions: Revisions, entrypoint: str, settings: BehaviourSettings) -> CheckContext:
    ctx = revisions.context(spec=ModelSpec(entrypoint=entrypoint))
    changes = GitRepository(revisions.repo.root).changes(revisions.base, revisions.head)
    return replace(ctx, settings=settings, changes=changes, python=sys.executable)


def run_change(
    repo: GitRepo, change: Change, settings: BehaviourSettings = SETTINGS
) -> CheckResult:
    return run_model(repo, MODELS[change.model], change.head(), settings)


def run_model(
    repo: GitRepo, model: Model, head: str, settings: BehaviourSettings = SETTINGS
) -> CheckResult:
    """``model`` committed at base, its file as ``head`` at head, and the check's result."""
    files = {model.path: model.source}
    if model.path.startswith("tinycls/"):
        files["tinycls/__init__.py"] = ""
    revisions = commit_two(repo, files, {model.path: head})
    return BehaviourCheck().run(context(revisions, model.entrypoint, settings))
