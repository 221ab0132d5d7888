"""The check protocol, the values every check returns (CheckContext in, CheckResult out) and
the scaffolding every check shares: ``Checking`` (typed settings, a CheckError becomes the
check's error result), ``finish`` (result assembly) and ``failed`` (the one mapping of what a
check raises). It knows none of the checks: what a check is handed, including the config's
shared `model:` and `data:` blocks, is in ``checks.context``; the two-revision runner of the
checks that run code is ``checks.model.turns.revisions``.

The exceptions are in ``checks.errors`` (one tree for all of gradgate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar, cast

from gradgate.checks.cache.results import CachedSide
from gradgate.checks.errors import CheckError
from gradgate.checks.sandbox.isolation import Isolation
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from gradgate.checks.context import CheckContext


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"
    ERROR = "error"
    SKIPPED = "skipped"
    # The check is required by the config but this version of gradgate cannot run it.
    # Never counted as a pass.
    UNAVAILABLE = "unavailable"
    # Not run yet, on purpose: it runs PR code and waits for a trusted /ok-to-test, or it waits
    # for a GPU worker (App mode). Never counted as a pass; the status stays pending.
    WAITING = "waiting"


class Severity(StrEnum):
    # In report order: the most severe first.
    BLOCKING = "blocking"  # a regression introduced by the PR: fails the gate
    WARNING = "warning"  # worth a look; does not fail the gate
    NOTE = "note"  # informational, including problems that already existed at base

    @property
    def rank(self) -> int:
        """0 for the most severe; sorts findings the way reports list them."""
        return list(Severity).index(self)


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # machine-readable, e.g. "protected-line-changed"
    severity: Severity
    message: str  # what happened and what to do about it
    file: str | None = None
    line: int | None = None
    details: str | None = None  # e.g. a before/after diff, shown folded
    revision: str | None = None  # "base" or "head" when the finding is about one side
    # How reports fence ``details``: "diff", "text" (a plain list), or "suggestion" (GitHub's
    # block for a replacement of the finding's line, which a reviewer can apply).
    details_lang: str = "diff"
    # A base-side finding's statement as it is at head, where it still exists there: what
    # GitHub can annotate and comment on ("Files changed" marks head lines). None: no such line.
    head_file: str | None = None
    head_line: int | None = None


# Where a suppression came from (issue 34): an inline comment that stands at base, a rule of the
# base's `.gradgate.yml`, or, not counted, one this change adds itself.
SuppressionOrigin = Literal["base", "config", "change"]


@dataclass(frozen=True, slots=True)
class Suppression:
    """A finding a suppression kept out (origin "base" or "config"), or one a suppression the
    change adds itself could not keep out (origin "change": the finding stands, see issue 34).
    Reports list every one, so nothing is silenced without a word."""

    rule: str  # what it suppresses: a rule id, or the config rule (e.g. a key pattern)
    origin: SuppressionOrigin
    file: str | None = None
    line: int | None = None
    reason: str | None = None  # the config rule's reason, where it has one

    @property
    def applied(self) -> bool:
        return self.origin != "change"


def report_order(finding: Finding) -> tuple[int, str, int]:
    """How findings are listed everywhere: most severe first, then by file and line."""
    return (finding.severity.rank, finding.file or "", finding.line or 0)


@dataclass(frozen=True, slots=True)
class CheckResult:
    check: str
    outcome: Outcome
    summary: str  # one line, fits a status description
    findings: tuple[Finding, ...] = ()
    metrics: Mapping[str, float] = field(default_factory=dict)
    duration_s: float = 0.0
    # How user code was isolated (the weakest of the check's sandbox runs); None: it ran none.
    # Set by the pipeline from CheckContext.isolations, so checks need not.
    isolation: Isolation | None = None
    # JSON values a check's own report template renders (bot/templates/checks/<name>.*.j2),
    # e.g. the gradient check's model summary and chart; also in the JSON report.
    extra: Mapping[str, Any] = field(default_factory=dict)
    # The suppressions met on the way (issue 34): listed in every report and counted in JSON.
    suppressions: tuple[Suppression, ...] = ()
    # The revisions whose facts came from the result cache, and the commit that computed them
    # (issue 37); set by the pipeline from CheckContext.cached.
    cached: tuple[CachedSide, ...] = ()


def outcome_for(findings: tuple[Finding, ...]) -> Outcome:
    """The outcome a set of findings implies: any blocking finding fails, any warning warns."""
    severities = {f.severity for f in findings}
    if Severity.BLOCKING in severities:
        return Outcome.FAIL
    if Severity.WARNING in severities:
        return Outcome.WARN
    return Outcome.PASS


class CheckSettings(BaseModel):
    """Settings every check accepts; each check extends this with its own keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # strict: YAML's `true` or "600" is a mistake, not a number of seconds; inf/nan never end.
    timeout_s: float = Field(
        default=600.0,
        gt=0,
        strict=True,
        allow_inf_nan=False,
        description="Wall-clock limit for this check, in seconds.",
    )


_S = TypeVar("_S", bound="CheckSettings")


def settings_as(model: type[_S], raw: CheckSettings) -> _S:
    """A check's own settings from what the pipeline passes (a check's tests pass them as is)."""
    return raw if isinstance(raw, model) else model.model_validate(raw.model_dump())


class UserCodeSettings(CheckSettings):
    """Settings of every check that runs user code in the sandbox (the model checks)."""

    memory_mb: int | None = Field(
        default=4096,
        gt=0,
        strict=True,
        description=(
            "Memory cap for the user code, in MB, for the child and everything it starts; "
            "null: no cap."
        ),
    )
    disk_mb: int | None = Field(
        default=2048,
        gt=0,
        strict=True,
        description=(
            "Disk cap for the user code, in MB: what it writes to its /tmp, HOME and copy of the "
            "tree together (a filesystem of that size under bubblewrap); null: no cap."
        ),
    )
    network: bool = Field(
        default=False,
        strict=True,
        description="Let the user code reach the network (e.g. a factory that downloads).",
    )
    env_allow: tuple[str, ...] = Field(
        default=(),
        description=(
            "Environment variables passed to the user code besides the built-in allow-list; "
            "gradgate's own credentials (GITHUB_TOKEN, ...) can never be passed."
        ),
    )


class Check(Protocol):
    """One check module's entry point, and everything the pipeline reads of it. Checks are
    listed explicitly in checks.REGISTRY; each is a ``Checking`` (below)."""

    name: ClassVar[str]
    title: ClassVar[str]  # a short human title for the report table
    settings_model: ClassVar[type[CheckSettings]]
    runs_user_code: ClassVar[bool]  # True: needs the sandbox and a trusted PR
    # True: for a PR whose code may not run yet, the check still runs and does only its static
    # part (``CheckContext.user_code`` is False then).
    runs_without_user_code: ClassVar[bool]
    available: ClassVar[bool]  # False: announced in the schema, not built yet

    def run(self, ctx: CheckContext) -> CheckResult: ...


_Settings = TypeVar("_Settings", bound=CheckSettings)


class Checking(Generic[_Settings]):
    """What every check shares: its settings arrive typed, and a ``CheckError`` it raises (user
    code that crashed, a model that cannot be used, a missing config block) becomes its error
    result (``failed``). A check writes ``check``: settings in, ``finish(...)`` out. The
    pipeline (``bot.pipeline.step``) times it and maps whatever else escapes the same way."""

    name: ClassVar[str]
    title: ClassVar[str]
    settings_model: ClassVar[type[CheckSettings]]
    runs_user_code: ClassVar[bool] = False
    runs_without_user_code: ClassVar[bool] = False
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        settings = cast(_Settings, settings_as(self.settings_model, ctx.settings))
        try:
            return self.check(ctx, settings)
        except CheckError as exc:
            return failed(self.name, exc)

    def check(self, ctx: CheckContext, settings: _Settings) -> CheckResult:
        raise NotImplementedError


def finish(
    check: str,
    findings: Iterable[Finding],
    summary: str | Callable[[tuple[Finding, ...]], str],
    *,
    outcome: Outcome | None = None,
    metrics: Mapping[str, float] | None = None,
    extra: Mapping[str, Any] | None = None,
    order: Callable[[Finding], Any] = report_order,
    suppressions: Iterable[Suppression] = (),
) -> CheckResult:
    """A decided check's result: its findings in report order, the outcome they imply (unless
    the check decides it: ``outcome``), and the summary, written for the ordered findings."""
    ordered = tuple(sorted(findings, key=order))
    return CheckResult(
        check=check,
        outcome=outcome_for(ordered) if outcome is None else outcome,
        summary=summary if isinstance(summary, str) else summary(ordered),
        findings=ordered,
        metrics=metrics or {},
        extra=extra or {},
        suppressions=tuple(suppressions),
    )


def failed(
    check: str,
    error: Exception | str,
    *,
    revision: str | None = None,
    details: str | None = None,
    details_lang: str = "diff",
) -> CheckResult:
    """A check that could not decide: an error, never a pass.

    For a ``CheckError`` or a message (user code that crashed, a factory that returned nothing
    usable, a missing config block): the summary is the message's first line and one blocking
    finding, `<check>-error`, names the revision (the error's own, if it has one) and keeps the
    rest of the message as its details. Anything else raised is a bug in gradgate: the summary
    names the exception's type."""
    if not isinstance(error, str | CheckError):
        message = str(error) or type(error).__name__
        return CheckResult(
            check=check, outcome=Outcome.ERROR, summary=f"{type(error).__name__}: {message}"
        )
    if isinstance(error, CheckError):
        revision = revision or error.revision
    first, _, rest = (str(error) or type(error).__name__).partition("\n")
    finding = Finding(
        kind=f"{check}-error",
        severity=Severity.BLOCKING,
        message=first,
        details=details or rest.strip() or None,
        revision=revision,
        details_lang=details_lang,
    )
    return CheckResult(check=check, outcome=Outcome.ERROR, summary=first, findings=(finding,))


def not_available(name: str) -> CheckResult:
    return CheckResult(
        check=name,
        outcome=Outcome.UNAVAILABLE,
        summary=f"`{name}` is not yet available in this version of gradgate",  # JSON only
    )
