"""The `gradient` check: does every parameter that learned at base still learn at head?

Each revision runs in its revision's sandboxed child (``child.probe``; one child per revision
serves every model check: ``checks.model.session``), both children started at once and the
probes run one after the other (``checks.model.turns``), with the same seed, device and batch;
the parent classifies every parameter (``classify``), compares base with head (``compare``),
words the findings grouped by module prefix (``findings``) and adds the model summary and the
gradient-norm chart (``summary``). A crash, hang or OOM at either revision is an error naming
the revision, never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar

from gradgate.checks.base import (
    Checking,
    CheckResult,
    CheckSettings,
    Finding,
    Severity,
    failed,
    finish,
)
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import SandboxError
from gradgate.checks.gradient.compare import Comparison, compare
from gradgate.checks.gradient.facts import Probed, RevisionFacts, parse_probe
from gradgate.checks.gradient.findings import accepted, findings_for
from gradgate.checks.gradient.settings import GradientSettings
from gradgate.checks.gradient.summary import chart, model_summary
from gradgate.checks.gradient.untested import untested_findings
from gradgate.checks.gradient.variants import across_variants, pair
from gradgate.checks.gradient.words import count, error_message, failure_detail, no_pair_words
from gradgate.checks.model.coverage import FileCoverage, child_spans, ran_counts
from gradgate.checks.model.lines import PullDiff, read_diff
from gradgate.checks.model.session import REVISIONS
from gradgate.checks.model.settings import effective_model
from gradgate.checks.model.spec import ModelSpec
from gradgate.checks.model.turns import Revisions, revisions

PROGRAM = "gradient.child.probe:probe"


class GradientCheck(Checking[GradientSettings]):
    name: ClassVar[str] = "gradient"
    title: ClassVar[str] = "Gradient flow"
    settings_model: ClassVar[type[CheckSettings]] = GradientSettings
    runs_user_code: ClassVar[bool] = True

    def check(self, ctx: CheckContext, settings: GradientSettings) -> CheckResult:
        base, head = measure(ctx, settings)
        model_files = ctx.paths_requiring.get(self.name, frozenset())

        def read(path: str) -> str | None:  # what guards the lines the model did not run
            data = ctx.source.read(ctx.head_sha, path)
            return None if data is None else data.decode("utf-8", "replace")

        return self.judge_all(
            base,
            head,
            settings,
            diff=read_diff(ctx),
            model_files=model_files,
            read=read,
        )

    def judge(
        self,
        base: RevisionFacts,
        head: RevisionFacts,
        settings: GradientSettings,
        *,
        diff: PullDiff | None = None,
    ) -> CheckResult:
        """The result for one model measured at two revisions (pure)."""
        return self.judge_all(Probed((base,)), Probed((head,)), settings, diff=diff)

    def judge_all(
        self,
        base: Probed,
        head: Probed,
        settings: GradientSettings,
        *,
        diff: PullDiff | None = None,
        model_files: Collection[str] = (),
        read: Callable[[str], str | None] = lambda _: None,
    ) -> CheckResult:
        """The result for two probed revisions: compare each variant with its namesake, word,
        say which changed code the model did not run, summarise (pure: ``read`` gives a file's
        text at head)."""
        diff = diff or PullDiff({})
        pairs, found = pair(base.variants, head.variants)
        if not pairs:  # nothing was compared: never a pass
            sides = [f.variant for f in base.variants], [f.variant for f in head.variants]
            return failed(self.name, no_pair_words(*sides))
        comparisons = [compare(p.base, p.head, allow=settings.allow) for p in pairs]
        found += across_variants(
            [
                (p.name, findings_for(comparison, gained=Severity(settings.gained), diff=diff))
                for p, comparison in zip(pairs, comparisons, strict=True)
            ]
        )
        found, older = _untouched_dead_left_out(found, diff)
        names = [f.variant for f in head.variants if f.variant is not None]
        coverage = model_coverage(head.coverage, model_files)
        found += untested_findings(
            coverage, diff, variants=names, model_files=model_files, read=read
        )
        first = comparisons[0]
        ran, code = ran_counts(coverage)
        more = {"changed_lines_ran": ran, "changed_lines_code": code} if code else {}
        return finish(
            self.name,
            found,
            lambda findings: _summary(first, findings, variants=len(pairs), older=older),
            suppressions=tuple(
                dict.fromkeys(x for c in comparisons for x in accepted(c, settings.allow))
            ),
            metrics={
                "trainable_base": sum(p.numel for p in first.base.params if p.trainable),
                "trainable_head": sum(p.numel for p in first.head.params if p.trainable),
                **more,
            },
            extra={**extra(first), "variants": names, "coverage": more},
        )


def measure(ctx: CheckContext, settings: GradientSettings) -> tuple[Probed, Probed]:
    """Run the probe on base, then on head, each in its revision's sandboxed child (the gate's
    model session: ``checks.model.session``), both children started at once, within the check's
    one `timeout_s` (``checks.model.turns``). A revision that crashed, hung, ran out of memory
    or gave an unusable model raises SandboxError or ModelError naming the revision; base's
    error comes first, as base runs first."""
    spec = effective_model(ctx, check=GradientCheck.name)
    with revisions(ctx, settings, device=settings.device, start=False) as sides:
        # The head child records which of the PR's changed lines ran (issue 20, point 5).
        spans = _recorded(sides, settings, spec, child_spans(ctx.changes),
                          ctx.paths_requiring.get(GradientCheck.name, frozenset()))  # fmt: skip
        model_files = ctx.paths_requiring.get(GradientCheck.name, frozenset())
        asked = {
            "base": _request(settings, spec, {}, model_files),
            "head": _request(settings, spec, spans, model_files),
        }
        only = [r for r in REVISIONS if not sides.cached(r, **asked[r])]
        sides.sessions.start(ctx, settings, entrypoint=spec.entrypoint, device=sides.device,
                             only=only)  # fmt: skip
        base = _probe(sides, "base", asked["base"])
        return base, _probe(sides, "head", asked["head"])


def _recorded(
    sides: Revisions,
    settings: GradientSettings,
    spec: ModelSpec,
    spans: dict[str, list[list[int]]],
    model_files: Collection[str],
) -> dict[str, list[list[int]]]:
    """The changed lines the head child records: of files the model imports, or in a zone that
    requires the check (only those count: ``model_coverage``). Which files head's model imports
    is known where the cache holds head's plain probe; there, a PR whose changed Python files
    are none of them (a test, a script) asks that plain probe, a hit."""
    if not spans:
        return spans
    plain = _request(settings, spec, {})
    hit = sides.sessions.lookup(sides.ctx, sides.settings, spec=spec, revision="head",
                                program=PROGRAM, kwargs=plain["kwargs"], device=sides.device,
                                seed=settings.seed)  # fmt: skip
    if hit is None:
        return spans
    return {path: s for path, s in spans.items() if path in hit.files or path in model_files}


def model_coverage(
    coverage: Mapping[str, FileCoverage], model_files: Collection[str]
) -> dict[str, FileCoverage]:
    """The changed files' coverage that is the model's: imported, or in a zone that requires
    the check (a test or a script the model never imports is no code it could run)."""
    return {path: c for path, c in coverage.items() if c.imported or path in model_files}


def _request(
    settings: GradientSettings,
    spec: ModelSpec,
    spans: Mapping[str, list[list[int]]],
    model_files: Collection[str] = (),
) -> dict[str, Any]:
    """The probe's request at one revision. Its facts are cached (``checks.cache``); with
    changed lines to record, also as the facts of the plain probe, less the coverage (what the
    next change, whose base this head is, asks), and of the probe that records only the
    changed lines of files the model imported or a zone holds (what ``_recorded`` asks when
    the cache knows which those are)."""
    plain = {"gradient": {"steps": settings.steps}, "coverage": None}
    kwargs = {**plain, "coverage": dict(spans) or None}

    def also(files: Sequence[str]) -> list[tuple[Mapping[str, Any], Callable[[Any], Any]]]:
        kept = {p: s for p, s in spans.items() if p in files or p in model_files}
        more: list[tuple[Mapping[str, Any], Callable[[Any], Any]]] = [(plain, _coverage_of(()))]
        if kept and kept != spans:
            more.append(({**plain, "coverage": kept}, _coverage_of(kept)))
        return more

    return {
        "spec": spec,
        "program": PROGRAM,
        "kwargs": kwargs,
        "seed": settings.seed,
        "cache": True,
        "also": None if kwargs == plain else also,
    }


def _coverage_of(kept: Collection[str]) -> Callable[[Any], Any]:
    """The probe's value as if only ``kept``'s changed lines were recorded (none: no coverage)."""

    def strip(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        if not kept:
            return {k: v for k, v in value.items() if k != "coverage"}
        coverage = value.get("coverage")
        if isinstance(coverage, dict):
            coverage = {p: c for p, c in coverage.items() if p in kept}
        return {**value, "coverage": coverage}

    return strip


def _probe(sides: Revisions, revision: str, request: Mapping[str, Any]) -> Probed:
    value = sides.run(revision, **request)
    found = parse_probe(value, revision=revision)
    for facts in found.variants:
        failure = facts.failure
        if failure is not None and failure.kind == "backward":
            variant = "" if facts.variant is None else f" (variant `{facts.variant}`)"
            raise SandboxError(
                f"{revision}{variant} crashed in the backward pass at step {failure.step}: "
                f"{error_message(failure.message)}{failure_detail(failure)}",
                kind="exception",
                revision=revision,
            )
    return found


def _untouched_dead_left_out(found: list[Finding], diff: PullDiff) -> tuple[list[Finding], int]:
    """Parameters dead at base and at head alike, in modules this PR changed no line of, are
    not the PR's doing: left out of the findings and counted for the summary (issue 36: the
    same "still dead" note on every PR is learned to skip). Kept when the PR changed the line
    the note points at, and all kept when the changed lines are unknown."""
    if not diff.head_lines:
        return found, 0

    def touched(f: Finding) -> bool:
        spans = diff.head_lines.get(f.file or "", ())
        return f.line is not None and any(f.line in span for span in spans)

    left = [f for f in found if f.kind == "gradient-still-dead" and not touched(f)]
    return [f for f in found if f not in left], len(left)


def _summary(
    c: Comparison, findings: tuple[Finding, ...], *, variants: int = 1, older: int = 0
) -> str:
    blocking = sum(1 for f in findings if f.severity is Severity.BLOCKING)
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    scope = f"{count(len(c.head.params), 'parameter tensor')} on {c.head.device}"
    scope += f", {count(variants, 'variant')}" if variants > 1 else ""
    dead = (
        f"; {count(older, 'parameter group')} dead at base too, in code this PR did not change"
        if older
        else ""
    )
    if blocking:
        said = count(blocking, "blocking finding")
        said += f", {count(warnings, 'warning')}" if warnings else ""
        return f"{said} ({scope}){dead}"
    warned = f"; {count(warnings, 'warning')}" if warnings else ""
    return f"every parameter that learned at base still learns ({scope}){warned}{dead}"


def extra(c: Comparison) -> dict[str, Any]:
    return {
        "summary": model_summary(c),
        "chart": chart(c),
        "parameters": [
            {
                "name": row.name,
                "base": None if row.base is None else str(row.base),
                "head": None if row.head is None else str(row.head),
                "change": None if row.change is None else str(row.change),
                "ratio": row.ratio,
                "allowed": row.allowed,
            }
            for row in c.rows
        ],
    }
