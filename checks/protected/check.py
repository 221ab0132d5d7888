"""The `protected` check: statements marked `# NO_REFAC` (or another marker) must not change.

Each changed file is read at base and head and its protected units found and paired within the
file (`scan`, using `python_units`, `markers`, `match`);
this module then follows units that left one changed file for another, words every pairing
(`findings`) and notes protected zones touched without a marker finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from gradgate.checks.base import Checking, CheckResult, CheckSettings, Finding, finish
from gradgate.checks.context import CheckContext
from gradgate.checks.diff import ChangeStatus
from gradgate.checks.protected.advice import advice, summary_part
from gradgate.checks.protected.findings import (
    MARKER_KINDS,
    added,
    deleted_file,
    finding_for,
    skipped,
    summary,
    unreadable,
    zone_touched,
)
from gradgate.checks.protected.head_side import at_head
from gradgate.checks.protected.markers import Unit, compile_markers, is_python
from gradgate.checks.protected.match import Fate, Pairing
from gradgate.checks.protected.python_units import PythonFile
from gradgate.checks.protected.scan import FileScan, Side, parse_quietly, read_side, scan_file
from gradgate.checks.protected.settings import ProtectedSettings


class ProtectedCheck(Checking[ProtectedSettings]):
    name: ClassVar[str] = "protected"
    title: ClassVar[str] = "Protected lines"
    settings_model: ClassVar[type[CheckSettings]] = ProtectedSettings

    def check(self, ctx: CheckContext, settings: ProtectedSettings) -> CheckResult:
        pattern = compile_markers(settings.markers)
        needles = tuple(marker.encode() for marker in settings.markers)
        scans: list[FileScan] = []
        notes: list[Finding] = []
        files = 0
        unmarked: list[str] = []  # Python files without markers: where a protected def may land
        for change in ctx.changes:
            # A copy leaves its source in place, so at base the copy is a new file. Nothing
            # git says about the content (binary, symlink) is taken on trust: `read_side`
            # decides from the bytes and the modes.
            base_path = None if change.status is ChangeStatus.COPIED else change.base_path
            base = read_side(ctx.source, ctx.base_sha, base_path, change.old_mode, needles)
            head = read_side(ctx.source, ctx.head_sha, change.head_path, change.new_mode, needles)
            if not (base.marked or head.marked):
                files += base.text is not None or head.text is not None
                if head.text is not None and head.path and is_python(head.path):
                    unmarked.append(head.path)
                continue
            files += 1
            if base.unreadable is not None and base.marked and not base.binary:
                # Text that may hold protected lines, but cannot be compared: never a pass.
                notes.append(unreadable(change.path, "base", base.unreadable, held=None))
                continue
            if base.unreadable is not None:  # binary, a symlink, a submodule: nothing protected
                base = Side(None)
            if head.unreadable is not None:
                held = _first_unit(base, pattern)
                if held is not None:  # protected at base, cannot be compared at head: block
                    notes.append(unreadable(change.path, "head", head.unreadable, held=held))
                elif head.marked and not head.binary:  # quiet for ordinary binaries
                    notes.append(skipped(change.path, f"{head.unreadable} at head"))
                continue
            base_side = None if base.path is None or base.text is None else (base.path, base.text)
            head_side = None if head.path is None or head.text is None else (head.path, head.text)
            scan = scan_file(base_side, head_side, pattern, notes)
            scans.append(scan)
            if head_side is not None:
                notes += advice(head_side[0], scan.unused, scan.mentions)

        def parse_unmarked() -> list[PythonFile]:
            return [
                parsed
                for path in unmarked
                if (parsed := parse_quietly(ctx.source, ctx.head_sha, path, pattern))
            ]

        findings, involved = _resolve(scans, parse_unmarked)
        for zone, paths in sorted(ctx.zones.items()):
            if paths and not involved.intersection(paths):
                notes.append(zone_touched(zone, paths, ctx.zone_owners.get(zone, ())))
        checked = sum(len(scan.pairings) for scan in scans)
        return finish(
            self.name,
            [*findings, *notes],
            lambda ordered: summary(
                ordered, checked=checked, files=files, advice=summary_part(ordered)
            ),
            metrics={"protected_statements": checked, "files_scanned": files},
        )


def _first_unit(base: Side, pattern: re.Pattern[str]) -> Unit | None:
    """The first protected unit of a readable base side, found by a scan against nothing."""
    if base.path is None or base.text is None or not base.marked:
        return None
    units = scan_file((base.path, base.text), None, pattern, []).pairings
    return units[0].base if units else None


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
        file_deleted = scan.head_lines is None
        deleted = [p.base for p in scan.pairings if file_deleted and p.fate is Fate.GONE]
        if deleted:  # one finding for a deleted file, however many statements it held
            findings.append(deleted_file(deleted))
            involved.add(deleted[0].path)
        for pairing in scan.pairings:
            if file_deleted and pairing.fate is Fate.GONE:
                continue
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
