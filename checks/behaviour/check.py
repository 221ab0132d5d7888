"""The `behaviour` check: with the same weights, does the model still do what it did?

Base's child probes each variant's invariants and records what base's weights compute
(``child.probe:base``, into a file in its exchange, which the gate hands over to head's child);
head's child probes the same invariants and compares its runs from base's weights with that
record (``child.probe:head``). Both in the revisions' shared children (``checks.model.session``),
within the check's one `timeout_s` (``checks.model.turns``); ``compare`` judges and points
each finding at the line that explains it. A crash, hang or unusable model at either revision
is an error naming it, never a pass.
"""

from __future__ import annotations

from typing import Any, ClassVar

from gradgate.checks.base import Checking, CheckResult, CheckSettings, Finding, Severity, finish
from gradgate.checks.behaviour.compare import judge
from gradgate.checks.behaviour.deleted import with_deletions
from gradgate.checks.behaviour.facts import VariantFacts, parse
from gradgate.checks.behaviour.settings import BehaviourSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.model.lines import read_diff
from gradgate.checks.model.settings import effective_model
from gradgate.checks.model.turns import revisions

PROGRAM = "behaviour.child.probe:{revision}"
RECORD = "behaviour-base.pt"  # what base's child saves in its exchange for head's child


class BehaviourCheck(Checking[BehaviourSettings]):
    name: ClassVar[str] = "behaviour"
    title: ClassVar[str] = "Behaviour"
    settings_model: ClassVar[type[CheckSettings]] = BehaviourSettings
    runs_user_code: ClassVar[bool] = True

    def check(self, ctx: CheckContext, settings: BehaviourSettings) -> CheckResult:
        base, head = measure(ctx, settings)
        diff = with_deletions(read_diff(ctx), _both_sides(ctx))
        found, accepted = judge(
            base, head, diff, [(rule.pattern, rule.reason) for rule in settings.allow]
        )
        return finish(
            self.name,
            found,
            lambda findings: summary(findings, variants=len(head)),
            suppressions=accepted,
        )


def measure(
    ctx: CheckContext, settings: BehaviourSettings
) -> tuple[tuple[VariantFacts, ...], tuple[VariantFacts, ...]]:
    """Base's facts, then head's (which read the record base's child saved, handed over).

    Both are cached (``checks.cache``): base's as any request; head's keyed by base's entry
    (what decided the record it reads) in place of the record's path. When the cache holds
    both, no child starts; when it holds base's only, base's facts are the cache's and its
    child runs again, for the record head's child reads."""
    spec = effective_model(ctx, check=BehaviourCheck.name)
    asked: dict[str, Any] = {
        "seed": settings.seed,
        "rtol": settings.rtol,
        "max_parameters": settings.max_parameters,
        "variants": {k: v.model_dump() for k, v in settings.variants.items()},
    }
    base_request: dict[str, Any] = {
        "spec": spec, "program": PROGRAM.format(revision="base"), "seed": settings.seed,
        "kwargs": {"behaviour": {**asked, "file": RECORD}}, "cache": True,
    }  # fmt: skip

    def head_request(path: str, base_key: str | None) -> dict[str, Any]:
        return {
            "spec": spec, "program": PROGRAM.format(revision="head"), "seed": settings.seed,
            "kwargs": {"behaviour": {**asked, "path": path}}, "cache": base_key is not None,
            "keyed": None if base_key is None else {"behaviour": asked, "base": base_key},
        }  # fmt: skip

    with revisions(ctx, settings, device=settings.device, start=False) as sides:
        known = sides.key("base", **base_request)
        both = known is not None and sides.cached("head", **head_request("", known))
        if not both:
            sides.sessions.start(ctx, settings, entrypoint=spec.entrypoint, device=sides.device)
        base = parse(sides.run("base", **base_request), revision="base")
        if both:
            return base, parse(sides.run("head", **head_request("", known)), revision="head")
        if known is not None:  # base's facts came from the cache: its child runs for the record
            sides.run("base", **base_request, fresh=True)
        record = sides.sessions.hand_over(
            ctx, settings, spec=spec, name=RECORD, timeout_s=sides.left("base"),
            device=sides.device,
        )  # fmt: skip
        value = sides.run("head", **head_request(str(record), sides.key("base", **base_request)))
        return base, parse(value, revision="head")


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
