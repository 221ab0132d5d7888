"""Pure planning: config + diff -> which checks run and why, and which are skipped and why."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from gradgate.bot.config.model import CONFIG_FILENAME, Config
from gradgate.bot.config.zone import Zone
from gradgate.bot.plan.zones import ZoneMatcher
from gradgate.checks import REGISTRY
from gradgate.checks.diff import FileChange
from gradgate.checks.gradient.edits import GradientEdit


class ConfigOrigin(StrEnum):
    BASE = "base"  # the normal case: the policy the PR is merging into
    HEAD = "head"  # the base had none: this PR adopts gradgate, so its own config applies
    FILE = "file"  # --config FILE given on the command line
    DEFAULT = "default"  # no config anywhere: built-in defaults


class ReasonKind(StrEnum):
    ZONE = "zone"  # a changed path is in a zone that requires the check
    ALWAYS = "always"  # the check is listed under `always`
    NO_CHANGES = "no-changes"
    NOT_IN_ZONE = "not-in-zone"  # no changed path is in a zone that requires it
    NOT_SELECTED = "not-selected"  # --only excluded it
    # The zone's files changed only in comments, docstrings or layout: a check that runs the
    # model (minutes, maybe a GPU) has nothing new to see. The zone still counts as touched.
    NON_SEMANTIC = "non-semantic"
    # A changed Python file adds or removes `.detach()`, `torch.no_grad`... (`gradient_edits`):
    # the gradient check runs, zone or not; the reason names the line.
    GRADIENT_SENSITIVE = "gradient-sensitive"
    # Too many changed Python files to read for such edits: the gradient check runs to be safe.
    GRADIENT_UNSCANNED = "gradient-unscanned"


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a check runs or is skipped; turned into words by the templates."""

    kind: ReasonKind
    zone: str | None = None
    path: str | None = None
    more: int = 0  # how many other changed paths in the same zone (or edits, or files)
    line: int | None = None  # gradient-sensitive: the line (at base when removed)
    construct: str | None = None  # gradient-sensitive: what was added or removed, as code
    removed: bool = False

    def as_json(self) -> dict[str, Any]:
        said = {"kind": str(self.kind), "zone": self.zone, "path": self.path, "more": self.more}
        if self.line is not None:
            said |= {"line": self.line, "construct": self.construct, "removed": self.removed}
        return said


@dataclass(frozen=True, slots=True)
class PlannedCheck:
    name: str
    title: str
    run: bool
    reasons: tuple[Reason, ...]
    available: bool
    runs_user_code: bool
    zones: tuple[str, ...] = ()  # zones that require this check and were touched


@dataclass(frozen=True, slots=True)
class Plan:
    checks: tuple[PlannedCheck, ...]
    zones: Mapping[str, tuple[str, ...]]  # touched zone -> its changed paths
    changed_files: int
    config_origin: ConfigOrigin
    config_changed: bool  # the PR edits .gradgate.yml (takes effect after merge)
    owners: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Zone -> its include patterns that match no file at head (bot.plan.zones.gaps): a warning,
    # since a file renamed out of its zone is how protection rots.
    unmatched: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # How many zones the config has; None: not known (a plan read from an older gradgate's JSON).
    configured_zones: int | None = None
    # The config has no zones and no file at head holds a marker comment: nothing is protected
    # yet, and a pass says so rather than look like a guarantee.
    nothing_protected: bool = False
    # The work tree holds a .gradgate.yml that the head commit does not (new, or edited): the
    # run did not read it (the config comes from commits), and the user should hear so.
    config_uncommitted: bool = False

    @property
    def to_run(self) -> tuple[PlannedCheck, ...]:
        return tuple(c for c in self.checks if c.run)

    def as_json(self) -> dict[str, Any]:
        return {
            "changed_files": self.changed_files,
            "config_origin": str(self.config_origin),
            "config_changed": self.config_changed,
            "zones": {name: list(paths) for name, paths in self.zones.items()},
            "owners": {name: list(o) for name, o in self.owners.items()},
            "unmatched": {name: list(p) for name, p in self.unmatched.items()},
            "configured_zones": self.configured_zones,
            "nothing_protected": self.nothing_protected,
            "config_uncommitted": self.config_uncommitted,
            "checks": [
                {
                    "name": c.name,
                    "run": c.run,
                    "available": c.available,
                    "runs_user_code": c.runs_user_code,
                    "zones": list(c.zones),
                    "reasons": [r.as_json() for r in c.reasons],
                }
                for c in self.checks
            ],
            # The GitHub Action turns this into a job matrix.
            "matrix": {"check": [c.name for c in self.checks if c.run]},
        }


def changed_paths(changes: Sequence[FileChange]) -> list[str]:
    """Every path the diff touches; a rename counts under its old and its new path."""
    return [path for change in changes for path in change.paths]


def make_plan(
    config: Config,
    paths: Sequence[str],
    *,
    changed_files: int,
    config_origin: ConfigOrigin,
    only: Collection[str] | None = None,
    non_semantic: Collection[str] = frozenset(),
    gradient_edits: Sequence[GradientEdit] = (),
    unscanned: Sequence[str] = (),
    unmatched: Mapping[str, tuple[str, ...]] | None = None,
    markers_at_head: bool = True,
) -> Plan:
    """``paths``: every path the diff touches (see `changed_paths`); ``changed_files``: how many
    files changed (a rename is one file but two paths); ``non_semantic``: paths whose change
    leaves the program the same (see `comment_only`), which do not trigger checks that run
    code; ``gradient_edits`` and ``unscanned``: gradient-sensitive edits found, and the paths
    not read for them (see `python_edits`), which may run the gradient check anywhere;
    ``unmatched``: the zone patterns that match no file at head (see `zones.gaps`);
    ``markers_at_head``: whether any file at head mentions a marker (asked only without zones)."""
    zones = ZoneMatcher.compile(config.zones).match(paths)
    zone_by_name = {z.name: z for z in config.zones}
    by_check: dict[str, list[str]] = {}  # check -> the touched zones requiring it, in order
    for z in zones:
        for name in dict.fromkeys(zone_by_name[z].checks):
            by_check.setdefault(name, []).append(z)
    planned: list[PlannedCheck] = []
    for name, check in REGISTRY.items():
        requiring = tuple(by_check.get(name, ()))
        run_reasons: list[Reason] = []
        quiet: list[Reason] = []  # zones touched only by non-semantic edits
        for z in requiring:
            counted = zones[z]
            if check.runs_user_code and non_semantic:
                counted = tuple(p for p in counted if p not in non_semantic)
            if counted:
                run_reasons.append(
                    Reason(ReasonKind.ZONE, zone=z, path=counted[0], more=len(counted) - 1)
                )
            else:
                quiet.append(
                    Reason(
                        ReasonKind.NON_SEMANTIC, zone=z, path=zones[z][0], more=len(zones[z]) - 1
                    )
                )
        if name in config.always and paths:
            run_reasons.insert(0, Reason(ReasonKind.ALWAYS))
        if name == "gradient" and (gradient_edits or unscanned):
            run_reasons += gradient_reasons(config, gradient_edits, unscanned)
        if only is not None and name not in only:
            skip = Reason(ReasonKind.NOT_SELECTED)
        elif not paths:
            skip = Reason(ReasonKind.NO_CHANGES)
        elif quiet:
            skip = quiet[0]
        else:
            skip = Reason(ReasonKind.NOT_IN_ZONE)
        runs = bool(run_reasons) and (only is None or name in only)
        planned.append(
            PlannedCheck(
                name=name,
                title=check.title,
                run=runs,
                reasons=tuple(run_reasons) if runs else (skip,),
                available=check.available,
                runs_user_code=check.runs_user_code,
                zones=requiring,
            )
        )
    owners = {z: zone_by_name[z].owners for z in zones if zone_by_name[z].owners}
    return Plan(
        checks=tuple(planned),
        zones=zones,
        changed_files=changed_files,
        config_origin=config_origin,
        config_changed=CONFIG_FILENAME in paths,
        owners=owners,
        unmatched=dict(unmatched or {}),
        configured_zones=len(config.zones),
        nothing_protected=not config.zones and not markers_at_head,
    )


def zones_for_check(plan: Plan, check: str) -> Mapping[str, tuple[str, ...]]:
    for planned in plan.checks:
        if planned.name == check:
            return {z: plan.zones[z] for z in planned.zones}
    return {}


def paths_requiring(plan: Plan, config: Config) -> Mapping[str, frozenset[str]]:
    """Check name -> the changed paths in the touched zones that require it."""
    out: dict[str, set[str]] = {}
    for zone in config.zones:
        for check in zone.checks:
            out.setdefault(check, set()).update(plan.zones.get(zone.name, ()))
    return {check: frozenset(paths) for check, paths in out.items()}


def gradient_reasons(
    config: Config, edits: Sequence[GradientEdit], unscanned: Sequence[str]
) -> list[Reason]:
    """Why gradient-sensitive edits run the gradient check: the first edit (and how many more),
    or, when the change was too large to read, its first unread Python file (and how many paths
    went unread). Nothing when the setting is off or the config never uses the gradient check
    (it would have no model to run)."""
    setting = config.gradient_sensitive
    uses = "gradient" in config.always or any("gradient" in z.checks for z in config.zones)
    if not setting.enabled or not uses:
        return []
    skip = _excluded(setting.exclude, [e.path for e in edits])
    kept = [e for e in edits if e.path not in skip]
    if kept:
        first = kept[0]
        return [
            Reason(
                ReasonKind.GRADIENT_SENSITIVE,
                path=first.path,
                line=first.line,
                construct=first.construct,
                removed=first.removed,
                more=len(kept) - 1,
            )
        ]
    # 100,000 unread paths: stop at the first Python file rather than list them all.
    python: Iterable[str] = (p for p in unscanned if p.endswith(".py"))
    if setting.exclude:
        listed = list(python)
        skip = _excluded(setting.exclude, listed)
        python = (p for p in listed if p not in skip)
    unread = next(iter(python), None)
    if unread is None:
        return []
    return [Reason(ReasonKind.GRADIENT_UNSCANNED, path=unread, more=len(unscanned))]


def _excluded(patterns: tuple[str, ...], paths: list[str]) -> set[str]:
    """The ``paths`` that the `gradient-sensitive.exclude` patterns match."""
    if not patterns or not paths:
        return set()
    zone = Zone.model_construct(name="exclude", paths=patterns)
    return set(ZoneMatcher.compile([zone]).match(paths).get("exclude", ()))
