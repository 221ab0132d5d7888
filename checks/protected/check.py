"""The `protected` check: statements marked `# NO_REFAC` (or another marker) must not change.

Each changed file is read at base and head and its protected units found and paired within the
file (`scan`, using `python_units`, `markers`, `match`);
this module then follows units that left one changed file for another, words every pairing
(`findings`) and notes protected zones touched without a marker finding.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, ClassVar

from gradgate.checks.base import (
    CheckContext,
    CheckResult,
    CheckSettings,
    Finding,
    outcome_for,
    report_order,
)
from gradgate.checks.diff import ChangeStatus
from gradgate.checks.protected.findings import (
    MARKER_KINDS,
    added,
    finding_for,
    skipped,
    summary,
    zone_touched,
)
from gradgate.checks.protected.head_side import at_head
from gradgate.checks.protected.markers import compile_markers, is_python
from gradgate.checks.protected.match import Fate, Pairing
from gradgate.checks.protected.python_units import PythonFile
from gradgate.checks.protected.scan import FileScan, Skip, load, parse_quietly, scan_file
from pydantic import AfterValidator, Field


def _marker(text: str) -> str:
    # A blank marker would be found in every comment; a marker spans one line of a comment.
    if not text.strip():
        raise ValueError("a marker must contain text, not only whitespace")
    if "\n" in text or "\r" in text:
        raise ValueError("a marker must fit on one line")
    return text


class ProtectedSettings(CheckSettings):
    """Settings of the `protected` check."""

    markers: tuple[Annotated[str, AfterValidator(_marker)], ...] = Field(
        default=("NO_REFAC", "DON'T TOUCH"),
        min_length=1,
        description="Comment markers that protect the statement they annotate.",
    )


class ProtectedCheck:
    name: ClassVar[str] = "protected"
    title: ClassVar[str] = "Protected lines"
    settings_model: ClassVar[type[CheckSettings]] = ProtectedSettings
    runs_user_code: ClassVar[bool] = False
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        started = time.perf_counter()
        settings = _settings(ctx.settings)
        pattern = compile_markers(settings.markers)
        needles = tuple(marker.encode() for marker in settings.markers)
        scans: list[FileScan] = []
        notes: list[Finding] = []
        files = 0
        unmarked: list[str] = []  # Python files without markers: where a protected def may land
        for change in ctx.changes:
            if change.binary or change.submodule or change.symlink:
                continue
            # A copy leaves its source in place, so at base the copy is a new file.
            base_path = None if change.status is ChangeStatus.COPIED else change.base_path
            head_path = change.head_path
            try:
                texts = load(ctx, (base_path, head_path), needles)
            except Skip as skip:
                if str(skip):
                    notes.append(skipped(change.path, str(skip)))
                continue
            files += 1
            if texts is None:
                if head_path is not None and is_python(head_path):
                    unmarked.append(head_path)
                continue
            base_text, head_text = texts
            base_side = None if base_path is None or base_text is None else (base_path, base_text)
            head_side = None if head_path is None or head_text is None else (head_path, head_text)
            scans.append(scan_file(base_side, head_side, pattern, notes))

        def parse_unmarked() -> list[PythonFile]:
            return [
                parsed
                for path in unmarked
                if (parsed := parse_quietly(ctx.source, ctx.head_sha, path, pattern))
            ]

        findings, involved = _resolve(scans, parse_unmarked)
        for zone, paths in sorted(ctx.zones.items()):
            if paths and not involved.intersection(paths):
                notes.append(zone_touched(zone, paths))
        ordered = tuple(sorted([*findings, *notes], key=report_order))
        checked = sum(len(scan.pairings) for scan in scans)
        return CheckResult(
            check=self.name,
            outcome=outcome_for(ordered),
            summary=summary(ordered, checked=checked, files=files),
            findings=ordered,
            metrics={"protected_statements": checked, "files_scanned": files},
            duration_s=time.perf_counter() - started,
        )


def _settings(raw: CheckSettings) -> ProtectedSettings:
    if isinstance(raw, ProtectedSettings):
        return raw
    return ProtectedSettings.model_validate(raw.model_dump())


def _resolve(
    scans: list[FileScan], parse_unmarked: Callable[[], list[PythonFile]]
) -> tuple[list[Finding], set[str]]:
    """Follow units gone from their file into the other changed files, then word every pairing.

    ``parse_unmarked`` parses the changed Python files that hold no marker, only if needed.
    Returns the findings and every path they involve."""
    free = [(i, unit) for i, scan in enumerate(scans) for unit in scan.new]
    elsewhere: list[tuple[int, PythonFile]] | None = None
    for i, scan in enumerate(scans):
        for k, pairing in enumerate(scan.pairings):
            if pairing.fate is not Fate.GONE:
                continue
            base = pairing.base
            moved = next(((j, u) for j, u in free if j != i and u.key == base.key), None)
            if moved is not None:
                free.remove(moved)
                scan.pairings[k] = Pairing(base, Fate.MOVED, moved[1])
                continue
            if elsewhere is None:
                elsewhere = [(j, s.head_py) for j, s in enumerate(scans) if s.head_py]
                elsewhere += [(-1, parsed) for parsed in parse_unmarked()]
            bare = next(
                (
                    found
                    for j, other in elsewhere
                    if j != i and (found := other.unprotected(base, same_scope=False))
                ),
                None,
            )
            if bare is not None:
                scan.pairings[k] = Pairing(base, Fate.UNPROTECTED, bare)

    findings: list[Finding] = []
    involved: set[str] = set()
    for scan in scans:
        for pairing in scan.pairings:
            said = finding_for(pairing, base_lines=scan.base_lines, head_lines=scan.head_lines)
            if said is not None:
                findings.append(at_head(said, pairing))
                involved.add(pairing.base.path)
                if pairing.head is not None:
                    involved.add(pairing.head.path)
    for _, unit in free:
        findings.append(added(unit))
        involved.add(unit.path)
    involved.update(f.file for f in findings if f.file and f.kind in MARKER_KINDS)
    return findings, involved
