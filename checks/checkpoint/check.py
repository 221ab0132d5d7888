"""The `checkpoint` check: will checkpoints saved before this PR still load, and mean the same?

It exports base and head, reads the configured references in gradgate's own process (headers
and pickle opcodes only: ``read``), and runs the user's model in the revisions' children
(``session``, through the gate's model session: ``checks.model.session``): each variant of
the base model described on the meta device (the default reference), each variant of the head
model on meta with its namesake's state dict dry-run into it (reference files: into the
first), and each variant's base weights compared with its head outputs. ``judge`` sorts what
the dry runs saw, ``infer`` proposes rename maps, ``findings`` and ``failures`` word it,
``variants`` names the variant each finding is about.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack
from typing import ClassVar

from gradgate.checks.base import (
    Checking,
    CheckResult,
    CheckSettings,
    Finding,
    Outcome,
    Severity,
    finish,
    outcome_for,
)
from gradgate.checks.checkpoint.failures import LOAD_FAILED, NOT_A_STATE_DICT, TORCH_TOO_OLD
from gradgate.checks.checkpoint.references import LFS_POINTER, UNREADABLE, prepare
from gradgate.checks.checkpoint.session import run_session
from gradgate.checks.checkpoint.settings import CheckpointSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.model.settings import effective_model
from gradgate.checks.model.turns import revisions

UNUSABLE = frozenset({UNREADABLE, LFS_POINTER, LOAD_FAILED, NOT_A_STATE_DICT, TORCH_TOO_OLD})


class CheckpointCheck(Checking[CheckpointSettings]):
    name: ClassVar[str] = "checkpoint"
    title: ClassVar[str] = "Checkpoint compatibility"
    settings_model: ClassVar[type[CheckSettings]] = CheckpointSettings
    runs_user_code: ClassVar[bool] = True
    # For a PR whose code may not run yet (App mode, an author without write access), the
    # references are still read at once: headers and pickle opcodes, never the PR's code.
    runs_without_user_code: ClassVar[bool] = True

    def check(self, ctx: CheckContext, settings: CheckpointSettings) -> CheckResult:
        if not ctx.user_code:
            return self._references_only(ctx, settings)
        spec = effective_model(ctx, check=self.name)
        with revisions(ctx, settings, device=settings.device, start=False) as sides:
            outcome = run_session(sides, settings, spec)
        # A reference that could not be used means "could not decide" (error), not "breaks"
        # (fail); unless the PR itself made it unusable.
        result = _introduced(outcome.findings)
        if outcome.unusable and result is not Outcome.FAIL:
            result = Outcome.ERROR
        return finish(
            self.name,
            outcome.findings,
            lambda findings: summary(findings, result),
            outcome=result,
            metrics=outcome.metrics,
            suppressions=outcome.suppressions,
        )

    def _references_only(self, ctx: CheckContext, settings: CheckpointSettings) -> CheckResult:
        """The static part: read every reference at base and head. A problem the PR made is a
        failure now; anything else waits for the part that builds the model (never a pass)."""
        changed = {path for change in ctx.changes for path in change.paths}
        with ExitStack() as stack:
            base_root = stack.enter_context(ctx.source.checkout(ctx.base_sha))
            head_root = stack.enter_context(ctx.source.checkout(ctx.head_sha))
            _, found, _ = prepare(
                settings.references, base_root=base_root, head_root=head_root, changed=changed
            )
        outcome = Outcome.FAIL if _introduced(found) is Outcome.FAIL else Outcome.WAITING
        return finish(
            self.name,
            found,
            lambda findings: (
                summary(findings, outcome)
                if outcome is Outcome.FAIL
                else "references read; loading them into the model waits for `/ok-to-test`"
            ),
            outcome=outcome,
        )


def _introduced(findings: Iterable[Finding]) -> Outcome:
    """The outcome of the findings the PR is answerable for: a reference that was unusable
    already at base is not."""
    return outcome_for(tuple(f for f in findings if f.kind not in UNUSABLE or f.revision == "head"))


def summary(findings: tuple[Finding, ...], outcome: Outcome) -> str:
    """One line for the status: what kind of breakage, how many."""
    blocking = [f for f in findings if f.severity is Severity.BLOCKING]
    if outcome is Outcome.ERROR:
        return "a reference checkpoint could not be read"
    if not blocking:
        warnings = sum(f.severity is Severity.WARNING for f in findings)
        if warnings:
            return f"checkpoints load, with {warnings} warning(s)"
        return "old checkpoints load and give the same outputs"
    kinds = sorted({f.kind.removeprefix("checkpoint-").replace("-", " ") for f in blocking})
    return f"old checkpoints break: {', '.join(kinds)}"
