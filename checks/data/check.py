"""The `data` check: the same input through the data path at base and at head, compared.

Each revision runs in its revision's sandboxed child (``child.probe``; the one the model checks
use: ``checks.model.session``), with every RNG seeded the same, both children started at once
and the runs one after the other (``checks.model.turns``); head takes the input in the form
base's transform took where it can.
The parent names what changed (``compare``) and words it (``findings``). A crash, hang or
unusable factory at either revision is an error naming the revision, never a pass.

Unlike the model checks, it has no variants to run (issue 35): its factory is the `data:`
block's, which builds the data path, not the model, so a model factory's named variants do
not reach it, and there is one transform (or dataset) per revision to compare.
"""

from __future__ import annotations

from typing import Any, ClassVar

from gradgate.checks.base import Checking, CheckResult, CheckSettings, Finding, Severity, finish
from gradgate.checks.context import CheckContext
from gradgate.checks.data.compare import Comparison, compare
from gradgate.checks.data.findings import accepted, findings_for
from gradgate.checks.data.problems import describe
from gradgate.checks.data.settings import DataSettings
from gradgate.checks.errors import CheckError, ModelError
from gradgate.checks.model.turns import Revisions, revisions

PROGRAM = "data.child.probe:probe"
FORMS = ("numpy", "pil", "tensor")


class DataCheck(Checking[DataSettings]):
    name: ClassVar[str] = "data"
    title: ClassVar[str] = "Data pipeline"
    settings_model: ClassVar[type[CheckSettings]] = DataSettings
    runs_user_code: ClassVar[bool] = True

    def check(self, ctx: CheckContext, settings: DataSettings) -> CheckResult:
        base, head = measure(ctx, settings)
        return self.judge(base, head, settings)

    def judge(
        self, base: dict[str, Any], head: dict[str, Any], settings: DataSettings
    ) -> CheckResult:
        """The result for two measured revisions (pure)."""
        comparison = compare(base, head, tolerance=settings.tolerance)
        return finish(
            self.name,
            findings_for(comparison, allow=settings.allow),
            lambda findings: _summary(comparison, findings),
            extra={"input": comparison.head_form, "outputs": comparison.outputs},
            suppressions=accepted(comparison, allow=settings.allow),
        )


def measure(ctx: CheckContext, settings: DataSettings) -> tuple[dict[str, Any], dict[str, Any]]:
    """The child's JSON for base, then head, within the check's one `timeout_s`. Head takes the
    input in the form base's transform took where it can: it tries base's form first."""
    spec = ctx.data
    if spec is None:
        raise CheckError(
            "`data` needs your data transform, and .gradgate.yml has no `data:` block: add one "
            "with `entrypoint: path/to/file.py:function` (a function that returns the "
            "transform); config.example.yaml shows every option"
        )
    request = {**spec.as_request(), "tolerance": settings.tolerance}
    # the revisions' children the model checks use, started only where the cache misses
    with revisions(ctx, settings, entrypoint=spec.entrypoint, key="data", start=False) as sides:
        if not sides.cached_entry("base", **_asked(spec.entrypoint, request, FORMS, settings.seed)):
            sides.sessions.start(ctx, settings, entrypoint=spec.entrypoint, key="data",
                                 device=sides.device)  # fmt: skip
        base = _run(sides, spec.entrypoint, request, "base", FORMS, settings.seed)
        forms = _first(str(base.get("form")))
        head = _run(sides, spec.entrypoint, request, "head", forms, settings.seed)
        return base, head


def _asked(
    entrypoint: str | None, request: dict[str, Any], forms: tuple[str, ...], seed: int
) -> dict[str, Any]:
    """A revision's request to its child. Cached (``checks.cache``) by the revision's whole
    tree: a transform may read any file (an image, a JSON of its means), not only modules."""
    return {
        "entrypoint": entrypoint, "key": "data", "request": {**request, "forms": list(forms)},
        "program": PROGRAM, "seed": seed, "whole_tree": True,
    }  # fmt: skip


def _first(form: str) -> tuple[str, ...]:
    return (form, *(f for f in FORMS if f != form))


def _run(
    sides: Revisions,
    entrypoint: str | None,
    request: dict[str, Any],
    revision: str,
    forms: tuple[str, ...],
    seed: int,
) -> dict[str, Any]:
    value = sides.run_entry(
        revision, **_asked(entrypoint, request, forms, seed), describe_problem=describe, cache=True
    )
    if not isinstance(value, dict) or "runs" not in value:
        raise ModelError(f"{revision}'s data child sent no outputs", code="no-output")
    return value


def _summary(c: Comparison, findings: tuple[Finding, ...]) -> str:
    blocking = sum(1 for f in findings if f.severity is Severity.BLOCKING)
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    scope = f"{c.outputs} output{'s' if c.outputs != 1 else ''}, input: {c.head_form}"
    if blocking:
        return (
            f"{blocking} output{'s' if blocking != 1 else ''} changed for the same input ({scope})"
        )
    warned = f"; {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""
    return f"the same input comes out the same ({scope}){warned}"
