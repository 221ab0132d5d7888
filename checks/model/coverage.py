"""Which of the PR's changed lines the model ran: what the child is asked, and what it says (pure).

The head child records, while it builds the model and steps it, which of the head revision's
changed lines of the repo's Python files ran (``child.coverage``: only lines with code count).
Here: the spans it is asked about, its answer as values, and the changed ranges of code it did
not run, per file — what a model check did not test (issue 20, point 5).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gradgate.checks.diff import FileChange, LineSpan
from gradgate.checks.errors import CheckError


@dataclass(frozen=True, slots=True)
class FileCoverage:
    code: frozenset[int]  # changed lines that hold code
    ran: frozenset[int]  # ... and ran during the build and the steps
    imported: bool  # the model imported the file (any of its code ran)


@dataclass(frozen=True, slots=True)
class Untested:
    """Changed lines of code in ``file`` the model did not run, as ranges (first, last)."""

    file: str
    ranges: tuple[tuple[int, int], ...]


def child_spans(changes: Iterable[FileChange]) -> dict[str, list[list[int]]]:
    """The head side's changed line spans of the repo's Python files, as the child takes them."""
    return {
        change.path: [[span.start, span.end] for span in change.new_lines]
        for change in changes
        if change.path.endswith(".py")
        and change.new_lines
        and not (change.binary or change.symlink or change.submodule)
    }


def parse_coverage(value: Any, *, revision: str) -> dict[str, FileCoverage]:
    """The child's ``coverage`` ({path: {code, ran, imported}}); malformed is gradgate's bug."""
    if value is None:
        return {}
    try:
        return {
            str(path): FileCoverage(
                frozenset(int(n) for n in item["code"]),
                frozenset(int(n) for n in item["ran"]),
                bool(item["imported"]),
            )
            for path, item in value.items()
        }
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CheckError(
            f"the line coverage at {revision} is malformed ({exc!r}); this is a bug in "
            "gradgate, please report it"
        ) from exc


def untested(
    coverage: Mapping[str, FileCoverage],
    head_lines: Mapping[str, tuple[LineSpan, ...]],
    *,
    model_files: Collection[str] = (),
) -> list[Untested]:
    """Per changed file that is the model's — it imported the file, or a zone that requires the
    check holds it (an optional feature's own module is never imported) — the changed ranges of
    code that did not run. A range is a run of such lines within one changed span; comments and
    blank lines inside it do not split it, a line that ran does."""
    found = []
    for path in sorted(coverage):
        cover = coverage[path]
        if not (cover.imported or path in model_files):
            continue  # a script or a test the model never imports: not its code
        ranges: list[tuple[int, int]] = []
        for span in head_lines.get(path, ()):
            start = end = None
            for line in sorted(n for n in cover.code if n in span):
                if line in cover.ran:
                    if start is not None and end is not None:
                        ranges.append((start, end))
                    start = end = None
                else:
                    start, end = (line if start is None else start), line
            if start is not None and end is not None:
                ranges.append((start, end))
        if ranges:
            found.append(Untested(path, tuple(ranges)))
    return found


def ran_counts(coverage: Mapping[str, FileCoverage]) -> tuple[int, int]:
    """(changed lines of code that ran, changed lines of code)."""
    return (
        sum(len(c.ran & c.code) for c in coverage.values()),
        sum(len(c.code) for c in coverage.values()),
    )
