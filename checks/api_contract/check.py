"""The `api-contract` check: did a calling convention change under its callers?

1. Signatures of the functions and methods in changed files of the zones that require the check
   (and of the names `watch` lists, wherever they live) are compared at base and head.
2. For the changes that matter to callers, one pass over the Python files at head finds the call
   sites they affect (`callsites`).
3. In every changed Python file, calls of asymmetric torch losses are compared with the names
   of their arguments and with the same calls at base (`losses`).
All static: user code is parsed, never imported.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import ClassVar

from gradgate.checks.api_contract.callsites import affected_calls
from gradgate.checks.api_contract.changes import Change, compare
from gradgate.checks.api_contract.findings import for_change, for_loss, skipped, summary
from gradgate.checks.api_contract.losses import NEEDLES, loss_calls, swapped_by_name, swapped_from
from gradgate.checks.api_contract.names import module_name
from gradgate.checks.api_contract.signatures import signatures
from gradgate.checks.api_contract.sources import Sources
from gradgate.checks.base import (
    CheckContext,
    CheckResult,
    CheckSettings,
    Finding,
    outcome_for,
    report_order,
)
from gradgate.checks.diff import ChangeStatus, FileChange
from pydantic import Field


class ApiContractSettings(CheckSettings):
    """Settings of the `api-contract` check."""

    watch: tuple[str, ...] = Field(
        default=(),
        description=(
            "Qualified names of functions and methods whose signatures are compared wherever "
            "they live, besides those in zones that require the check; `*` matches any part, "
            "e.g. `mypkg.losses.*` or `mypkg.metrics.Accuracy.update`."
        ),
    )
    losses: bool = Field(
        default=True,
        strict=True,
        description=(
            "Flag calls of asymmetric torch losses (`F.cross_entropy`, `nn.NLLLoss()`...) whose "
            "arguments look swapped, by their names or against the same call at base."
        ),
    )


class ApiContractCheck:
    name: ClassVar[str] = "api-contract"
    title: ClassVar[str] = "API contracts"
    settings_model: ClassVar[type[CheckSettings]] = ApiContractSettings
    runs_user_code: ClassVar[bool] = False
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        started = time.perf_counter()
        settings = _settings(ctx.settings)
        sources = Sources(ctx.source, {"base": ctx.base_sha, "head": ctx.head_sha})
        python = [c for c in ctx.changes if _is_python(c)]
        in_zones = {p for paths in ctx.zones.values() for p in paths}
        changes = _changed_signatures(python, sources, in_zones, settings.watch)
        findings: list[Finding] = []
        callers = [c for c in changes if c.callers_matter]
        if callers:
            head_files = [p for p in ctx.source.list_files(ctx.head_sha) if p.endswith(".py")]
            changed = {c.head_path: _base_path(c) for c in python if c.head_path}
            sites = affected_calls(callers, sources, head_files, changed)
        else:
            sites = {}
        for change in changes:
            findings += for_change(change, sites.get(change.full, []))
        checked = 0
        if settings.losses:
            loss_findings, checked = _loss_findings(python, sources)
            findings += loss_findings
        findings += [skipped(path, why) for (_, path), why in sorted(sources.unreadable.items())]
        ordered = tuple(sorted(findings, key=report_order))
        return CheckResult(
            check=self.name,
            outcome=outcome_for(ordered),
            summary=summary(ordered, signatures=len(changes), calls=checked),
            findings=ordered,
            metrics={"signatures_changed": len(changes), "loss_calls": checked},
            duration_s=time.perf_counter() - started,
        )


def _settings(raw: CheckSettings) -> ApiContractSettings:
    if isinstance(raw, ApiContractSettings):
        return raw
    return ApiContractSettings.model_validate(raw.model_dump())


def _is_python(change: FileChange) -> bool:
    return (
        change.path.endswith(".py")
        and not (change.binary or change.submodule or change.symlink)
        and change.status is not ChangeStatus.TYPE_CHANGED
    )


def _base_path(change: FileChange) -> str | None:
    # A copy leaves its source in place: at base, the copy is a new file.
    return None if change.status is ChangeStatus.COPIED else change.base_path


def _changed_signatures(
    python: list[FileChange], sources: Sources, in_zones: set[str], watch: tuple[str, ...]
) -> list[Change]:
    out = []
    for change in python:
        base_path, head_path = _base_path(change), change.head_path
        if base_path is None or head_path is None:
            continue
        zoned = base_path in in_zones or head_path in in_zones
        if not zoned and not watch:
            continue
        base_tree, head_tree = sources.tree("base", base_path), sources.tree("head", head_path)
        if base_tree is None or head_tree is None:
            continue
        module = module_name(head_path)
        base_sigs, head_sigs = signatures(base_tree), signatures(head_tree)
        for qualname, head_sig in head_sigs.items():
            base_sig = base_sigs.get(qualname)
            full = f"{module}.{qualname}"
            if base_sig is None or not (zoned or _watched(full, watch)):
                continue
            found = compare(head_path, full, base_sig, head_sig)
            if found is not None:
                out.append(found)
    return out


def _watched(full: str, patterns: Iterable[str]) -> bool:
    """Does a pattern match the qualified name, or a dotted suffix of it (`src/` layouts)?"""
    parts = full.split(".")
    suffixes = [".".join(parts[i:]) for i in range(len(parts))]
    return any(fnmatchcase(s, p) for p in patterns for s in suffixes)


def _loss_findings(python: list[FileChange], sources: Sources) -> tuple[list[Finding], int]:
    """Loss calls at head in the changed files, judged by names and against every changed
    file's calls at base (a call that moved between files is the same call)."""
    before: set[tuple[str, ...]] = set()
    for change in python:
        data = sources.read("base", _base_path(change))
        if data is not None and NEEDLES.search(data):
            before |= {c.key for c in loss_calls(sources.calls("base", _base_path(change)))}
    out: list[Finding] = []
    checked = 0
    for change in python:
        path = change.head_path
        data = sources.read("head", path)
        if path is None or data is None or not NEEDLES.search(data):
            continue
        for call in loss_calls(sources.calls("head", path)):
            checked += 1
            by_name = swapped_by_name(call)
            if call.key in before:
                if by_name:
                    out.append(for_loss(path, call, by_name, by_name=True, at_base=True))
                continue
            pair = by_name or swapped_from(call, before)
            if pair is not None:
                out.append(for_loss(path, call, pair, by_name=by_name is not None, at_base=False))
    return out, checked
