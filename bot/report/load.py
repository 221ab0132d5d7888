"""Report JSON (`gradgate check --format json`) back into a Report value (pure).

The GitHub door runs the checks in a child process, or in other jobs of a workflow, and reads
their JSON here. That JSON may come from a fork's workflow run, so it is parsed strictly into
typed values (pydantic) and then rendered by gradgate's own templates, never pasted.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from gradgate.bot.plan.plan import ConfigOrigin, Plan, PlannedCheck, Reason, ReasonKind
from gradgate.bot.report.formats import CHECK_NAME, CONFIG_HASH, SHA
from gradgate.bot.report.lines import DiffLines
from gradgate.bot.report.render import Report
from gradgate.bot.report.verdict import Verdict
from gradgate.checks import REGISTRY
from gradgate.checks.base import (
    CheckResult,
    Finding,
    Outcome,
    Severity,
    Suppression,
    SuppressionOrigin,
)
from gradgate.checks.cache.results import CachedSide
from gradgate.checks.diff import LineSpan
from gradgate.checks.model.plan.compare import plan_from_json as model_plan_from_json
from gradgate.checks.sandbox.isolation import Isolation, Scope
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

_MODEL = ConfigDict(extra="ignore", frozen=True)
M = TypeVar("M", bound=BaseModel)
# What reaches the hidden stamp, statuses and links is checked by its format (issue 17): the
# JSON may come from a fork's run.
_Sha = Annotated[str, StringConstraints(pattern=f"^{SHA}$")]
_ConfigHash = Annotated[str, StringConstraints(pattern=f"^{CONFIG_HASH}$")]
_Line = Annotated[int, Field(ge=1)]
_CheckName = Annotated[str, StringConstraints(pattern=f"^{CHECK_NAME}$", max_length=40)]


class _Reason(BaseModel):
    model_config = _MODEL
    kind: ReasonKind
    zone: str | None = None
    path: str | None = None
    more: int = 0
    line: int | None = None  # a gradient-sensitive edit's line and what it adds or removes
    # `construct` would shadow BaseModel.construct: read it under another name.
    code: str | None = Field(default=None, alias="construct")
    removed: bool = False


class _PlannedCheck(BaseModel):
    model_config = _MODEL
    name: _CheckName
    run: bool
    available: bool
    runs_user_code: bool
    zones: tuple[str, ...] = ()
    reasons: tuple[_Reason, ...] = ()


class _Plan(BaseModel):
    model_config = _MODEL
    changed_files: int
    config_origin: ConfigOrigin
    config_changed: bool
    zones: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    owners: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    unmatched: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    configured_zones: int | None = None
    nothing_protected: bool = False
    config_uncommitted: bool = False
    checks: tuple[_PlannedCheck, ...]


class _Finding(BaseModel):
    model_config = _MODEL
    kind: str
    severity: Severity
    message: str
    file: str | None = None
    line: _Line | None = None
    details: str | None = None
    revision: str | None = None
    details_lang: str = "diff"
    head_file: str | None = None
    head_line: _Line | None = None


class _Suppression(BaseModel):
    model_config = _MODEL
    rule: str
    origin: SuppressionOrigin
    file: str | None = None
    line: _Line | None = None
    reason: str | None = None


class _Isolation(BaseModel):
    model_config = _MODEL
    sandbox: Literal["bubblewrap", "process"]
    reason: str | None = None
    memory: Scope | None = None
    processes: Scope | None = None
    network: bool = True
    contained: bool = False
    cgroup: int | None = None
    disk: Literal["tmpfs", "watched"] | None = None
    disk_mb: int | None = None


class _Cached(BaseModel):
    model_config = _MODEL
    revision: Literal["base", "head"]
    commit: _Sha
    program: str = Field(max_length=200)


class _Check(BaseModel):
    model_config = _MODEL
    name: _CheckName
    outcome: Outcome
    summary: str | None = None  # None: the check produced no result
    duration_s: float | None = None
    metrics: dict[str, float] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)  # a check's own data for its template
    findings: tuple[_Finding, ...] = ()
    suppressions: tuple[_Suppression, ...] = ()
    sandbox: _Isolation | None = None  # how its model code was isolated
    cached: tuple[_Cached, ...] = ()  # the sides read from the result cache


_Span = tuple[Annotated[int, Field(ge=1)], Annotated[int, Field(ge=1)]]


class _DiffLines(BaseModel):
    model_config = _MODEL
    head: dict[str, tuple[_Span, ...]] = Field(default_factory=dict)
    base: dict[str, tuple[_Span, ...]] = Field(default_factory=dict)
    renamed: dict[str, str] = Field(default_factory=dict)


class _Report(BaseModel):
    model_config = _MODEL
    verdict: Verdict
    error: str | None = None
    base_sha: _Sha | None = None
    head_sha: _Sha | None = None
    config_hash: _ConfigHash | None = None
    config_source: str | None = None
    plan: _Plan | None = None
    checks: tuple[_Check, ...] = ()
    diff_lines: _DiffLines | None = None
    model_plan: dict[str, Any] | None = None  # parsed by checks.model.plan.compare
    model_plan_cached: dict[Literal["base", "head"], _Sha] = Field(default_factory=dict)


def plan_from_json(data: Any) -> Plan:
    """``Plan.as_json()`` back into a Plan. Raises ValueError naming the first problem."""
    return _plan(_parse(_Plan, data))


def report_from_json(data: Any) -> Report:
    """``as_json(report)`` back into a Report. Raises ValueError naming the first problem."""
    parsed = _parse(_Report, data)
    results = tuple(
        CheckResult(
            check=c.name,
            outcome=c.outcome,
            summary=c.summary,
            findings=tuple(Finding(**f.model_dump()) for f in c.findings),
            metrics=c.metrics,
            duration_s=c.duration_s or 0.0,
            isolation=None if c.sandbox is None else Isolation(**c.sandbox.model_dump()),
            extra=c.extra,
            suppressions=tuple(Suppression(**s.model_dump()) for s in c.suppressions),
            cached=tuple(CachedSide(**x.model_dump()) for x in c.cached),
        )
        for c in parsed.checks
        if c.summary is not None
    )
    return Report(
        verdict=parsed.verdict,
        results=results,
        plan=_plan(parsed.plan) if parsed.plan is not None else None,
        base_sha=parsed.base_sha,
        head_sha=parsed.head_sha,
        config_hash=parsed.config_hash,
        config_source=parsed.config_source,
        error=parsed.error,
        diff_lines=_diff_lines(parsed.diff_lines) if parsed.diff_lines is not None else None,
        model_plan=None if parsed.model_plan is None else model_plan_from_json(parsed.model_plan),
        plan_cached=tuple(sorted(parsed.model_plan_cached.items())),
    )


def _diff_lines(lines: _DiffLines) -> DiffLines:
    def spans(side: dict[str, tuple[_Span, ...]]) -> dict[str, tuple[LineSpan, ...]]:
        return {path: tuple(LineSpan(a, max(a, b)) for a, b in got) for path, got in side.items()}

    return DiffLines(head=spans(lines.head), base=spans(lines.base), renamed=lines.renamed)


def _parse(model: type[M], data: Any) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise ValueError(f"{where}: {first['msg']}") from None


def _plan(plan: _Plan) -> Plan:
    return Plan(
        checks=tuple(
            PlannedCheck(
                name=c.name,
                title=REGISTRY[c.name].title if c.name in REGISTRY else c.name,
                run=c.run,
                reasons=tuple(
                    Reason(
                        r.kind,
                        zone=r.zone,
                        path=r.path,
                        more=r.more,
                        line=r.line,
                        construct=r.code,
                        removed=r.removed,
                    )
                    for r in c.reasons
                ),
                available=c.available,
                runs_user_code=c.runs_user_code,
                zones=c.zones,
            )
            for c in plan.checks
        ),
        zones=plan.zones,
        changed_files=plan.changed_files,
        config_origin=plan.config_origin,
        config_changed=plan.config_changed,
        owners=plan.owners,
        unmatched=plan.unmatched,
        configured_zones=plan.configured_zones,
        nothing_protected=plan.nothing_protected,
        config_uncommitted=plan.config_uncommitted,
    )
