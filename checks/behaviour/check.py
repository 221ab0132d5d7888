"""The `behaviour` check: with the same weights, does the model still do what it did?

Base's child probes each variant's invariants and records what base's weights compute
(``child.probe:base``, into a file in the session's scratch folder); head's child probes the
same invariants and compares its runs from base's weights with that record
(``child.probe:head``). Both in the revisions' shared children (``checks.model.session``),
within the check's one `timeout_s` (``checks.model.turns``); ``compare`` judges and points
each finding at the line that explains it. A crash, hang or unusable model at either revision
is an error naming it, never a pass.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from gradgate.checks.base import (
    CheckContext,
    CheckResult,
    CheckSettings,
    Finding,
    Severity,
    error_result,
    outcome_for,
    report_order,
    settings_as,
)
from gradgate.checks.behaviour.compare import judge
from gradgate.checks.behaviour.deleted import with_deletions
from gradgate.checks.behaviour.facts import VariantFacts, parse
from gradgate.checks.behaviour.settings import BehaviourSettings
from gradgate.checks.errors import CheckError
from gradgate.checks.model.device import device_for
from gradgate.checks.model.lines import read_diff
from gradgate.checks.model.session import model_sessions
from gradgate.checks.model.settings import effective_model
from gradgate.checks.model.turns import Deadline

PROGRAM = "behaviour.child.probe:{revision}"


class BehaviourCheck:
    name: ClassVar[str] = "behaviour"
    title: ClassVar[str] = "Behaviour"
    settings_model: ClassVar[type[CheckSettings]] = BehaviourSettings
    runs_user_code: ClassVar[bool] = True
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        started = time.perf_counter()
        settings = settings_as(BehaviourSettings, ctx.settings)
        try:
            base, head = measure(ctx, settings)
        except CheckError as failed:
            return error_result(self.name, str(failed), revision=getattr(failed, "revision", None),
                                duration_s=time.perf_counter() - started)  # fmt: skip
        diff = with_deletions(read_diff(ctx), _both_sides(ctx))
        found = judge(base, head, diff, [(rule.pattern, rule.reason) for rule in settings.allow])
        findings = tuple(sorted(found, key=report_order))
        return CheckResult(
            check=self.name,
            outcome=outcome_for(findings),
            summary=summary(findings, variants=len(head)),
            findings=findings,
            duration_s=time.perf_counter() - started,
        )


def measure(
    ctx: CheckContext, settings: BehaviourSettings
) -> tuple[tuple[VariantFacts, ...], tuple[VariantFacts, ...]]:
    """Base's facts, then head's (which read base's record)."""
    spec = effective_model(ctx, check=BehaviourCheck.name)
    deadline = Deadline(settings.timeout_s)
    with model_sessions(ctx) as sessions:
        device = device_for(ctx, settings, settings.device, root=sessions.root(ctx, "base"))
        sessions.start(ctx, settings, entrypoint=spec.entrypoint, device=device)
        record = sessions.scratch() / "behaviour-base.pt"
        asked: dict[str, Any] = {
            "seed": settings.seed,
            "rtol": settings.rtol,
            "max_parameters": settings.max_parameters,
            "variants": {k: v.model_dump() for k, v in settings.variants.items()},
            "path": str(record),
        }
        found = []
        for revision in ("base", "head"):
            value = sessions.run(
                ctx, settings, spec=spec, revision=revision,
                program=PROGRAM.format(revision=revision), kwargs={"behaviour": asked},
                device=device, seed=settings.seed, timeout_s=deadline.left(revision),
            )  # fmt: skip
            found.append(parse(value, revision=revision))
        return found[0], found[1]


def _both_sides(ctx: CheckContext) -> list[tuple[str, bytes, bytes]]:
    """The changed Python files at both revisions: where a deletion can be placed at head."""
    files = []
    for change in ctx.changes:
        if (
            change.path.endswith(".py")
            and change.old_lines
            and change.base_path
            and change.head_path
        ):
            old = ctx.source.read(ctx.base_sha, change.base_path)
            new = ctx.source.read(ctx.head_sha, change.path)
            if old is not None and new is not None:
                files.append((change.path, old, new))
    return files


def summary(findings: tuple[Finding, ...], *, variants: int) -> str:
    blocking = [f for f in findings if f.severity is Severity.BLOCKING]
    scope = f" ({variants} variants)" if variants > 1 else ""
    if blocking:
        kinds = sorted({f.kind.removeprefix("behaviour-").replace("-", " ") for f in blocking})
        return f"the model behaves otherwise: {', '.join(kinds)}{scope}"
    warnings = sum(f.severity is Severity.WARNING for f in findings)
    said = f", {warnings} warning(s)" if warnings else ""
    return f"same weights, same behaviour{scope}{said}"
