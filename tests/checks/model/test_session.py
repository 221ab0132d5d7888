"""checks.model.session: one sandboxed child per revision serves every model check of a gate.

Real git repos, real torch, real children. How many children a gate started is read from a
trace the user's factory writes: a token drawn once per interpreter, one line per call.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gradgate.checks.base import CheckResult, Outcome
from gradgate.checks.checkpoint.check import CheckpointCheck
from gradgate.checks.checkpoint.settings import CheckpointSettings
from gradgate.checks.gradient.check import GradientCheck
from gradgate.checks.model.session import ModelSessions

from tests.checks.gradient.revisions import SETTINGS, Revisions, commit_two
from tests.gitrepo import GitRepo

MODEL = """\
import os
import sys
import time

import torch
from torch import nn


def build():
    {work}
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)), torch.randn(3, 4)
"""
# The token survives the factory's module being imported again in the same interpreter.
TRACED = """\
token = sys.__dict__.setdefault("_trace_token", os.urandom(8).hex())
    with open({trace!r}, "a") as trace:
        trace.write(token + "\\n")"""
# Only the real build (the gradient check's) hangs or crashes; the checkpoint check builds on
# the meta device.
HANGS = "if torch.empty(0).device.type != 'meta':\n        time.sleep(3600)"
CRASHES = "if torch.empty(0).device.type != 'meta':\n        os._exit(3)"
CHECKPOINT = CheckpointSettings(timeout_s=300.0, memory_mb=2048, equivalence=False)


def model(work: str) -> str:
    return MODEL.format(work=work)


def test_a_gate_starts_one_child_per_revision_for_gradient_and_checkpoint(tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    traced = model(TRACED.format(trace=str(trace)))
    revisions = commit_two(
        GitRepo(tmp_path / "repo"), {"model.py": traced}, {"model.py": traced + "\nWIDTH = 8\n"}
    )
    # As the pipeline runs them: each check its own context, the gate's sessions shared.
    # Process-level, so that the factory may write the trace outside a sandbox.
    with ModelSessions() as sessions:
        ctx = replace(revisions.context(), sandbox="process", models=sessions)
        gradient = GradientCheck().run(ctx)
        checkpoint = CheckpointCheck().run(replace(ctx, settings=CHECKPOINT, isolations=[]))

    assert (gradient.outcome, checkpoint.outcome) == (Outcome.PASS, Outcome.PASS), checkpoint
    calls = trace.read_text().split()
    assert len(calls) > 2  # both checks built the model, at both revisions
    assert len(set(calls)) == 2  # in two interpreters: one for base, one for head


def two_checks(tmp_path: Path, work: str) -> tuple[CheckResult, CheckResult, ModelSessions]:
    """The gradient check, then the checkpoint check, sharing one gate's children, on a PR
    whose factory does ``work`` at base and head."""
    revisions: Revisions = commit_two(
        GitRepo(tmp_path), {"model.py": model(work)}, {"model.py": model(work) + "\nWIDTH = 8\n"}
    )
    with ModelSessions() as sessions:
        quick = SETTINGS.model_copy(update={"timeout_s": 20.0})
        gradient = GradientCheck().run(replace(revisions.context(quick), models=sessions))
        ctx = replace(revisions.context(), settings=CHECKPOINT, models=sessions)
        checkpoint = CheckpointCheck().run(ctx)
    return gradient, checkpoint, sessions


def test_a_hang_in_one_checks_work_times_out_that_check_and_the_next_gets_its_result(
    tmp_path: Path,
) -> None:
    gradient, checkpoint, _ = two_checks(tmp_path, HANGS)

    assert gradient.outcome is Outcome.ERROR
    assert "did not finish within" in gradient.summary, gradient.summary
    assert gradient.findings[0].revision == "base"
    assert checkpoint.outcome is Outcome.PASS, checkpoint


def test_a_crash_in_one_checks_work_is_that_checks_error_and_the_next_gets_its_result(
    tmp_path: Path,
) -> None:
    gradient, checkpoint, sessions = two_checks(tmp_path, CRASHES)

    assert gradient.outcome is Outcome.ERROR
    assert gradient.summary.startswith("`model.py:build` at base"), gradient.summary
    assert "exit" in gradient.summary, gradient.summary
    assert checkpoint.outcome is Outcome.PASS, checkpoint
    # The crashed base child was replaced for the next check; head's never ran (base's error
    # ended the gradient check first) and serves the checkpoint check.
    assert sessions.started == 3
