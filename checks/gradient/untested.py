"""The PR's changed code the model did not run: one line per PR, in two parts (issue 36).

The head child recorded which changed lines of code ran while the model (every variant) was
built and stepped (``model.coverage``); what did not run was not tested by this check. What a
variant could run under a flag the check can name (``reach``), in the model's own files (a zone
that requires the check), is one warning that names the flag: a variant with it on covers the
lines. What a forward pass could reach but nothing nameable turns on (a `forward` argument, a
local, a module the zones leave out) is one note, since no advice would be concrete. What no
forward pass reaches (`configure_optimizers`, `from_pretrained`) is one note, in files the model
imports; elsewhere nothing: no model check can run such code. Never a block: the PR may be
right, the check just cannot vouch for it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.gradient.reach import reach
from gradgate.checks.gradient.words import (
    factory_shape,
    unnamed_words,
    unreached_words,
    untested_words,
)
from gradgate.checks.model.coverage import FileCoverage, untested
from gradgate.checks.model.lines import PullDiff


def untested_findings(
    coverage: Mapping[str, FileCoverage],
    diff: PullDiff,
    *,
    variants: Sequence[str] = (),
    model_files: Collection[str] = (),
    read: Callable[[str], str | None] = lambda _: None,
) -> list[Finding]:
    """``variants``: the factory's variant names at head (none: it returns one model);
    ``model_files``: changed paths in zones that require the check (the model's, imported or
    not); ``read``: a file's text at head."""
    parted = [
        reach(u.file, u.ranges, read(u.file), coverage[u.file].ran)
        for u in untested(coverage, diff.head_lines, model_files=model_files)
    ]
    out = []
    ours = set(model_files)
    # A flag of a file outside the model's zones turns on code of a module the model may not
    # build at all: no variant of this factory is sure to reach it.
    could = [r for r in parted if r.named and (r.file in ours or not ours)]
    if could:
        first = could[0]
        flag = next((g for r in could for g in r.guards), None)
        out.append(
            Finding(
                kind="gradient-untested",
                severity=Severity.WARNING,
                message=untested_words([(r.file, r.named, r.guards) for r in could], variants),
                file=first.file,
                line=first.named[0][0],
                revision="head",
                details=factory_shape(first.file, first.named, variants, flag),
                details_lang="python",
            )
        )
    named = {r.file: set(r.named) for r in could}
    rest = [
        (r.file, tuple(x for x in r.reachable if x not in named.get(r.file, ()))) for r in parted
    ]
    rest = [(file, ranges) for file, ranges in rest if ranges]
    if rest:
        out.append(
            Finding(
                kind="gradient-untested",
                severity=Severity.NOTE,
                message=unnamed_words(rest, variants),
                file=rest[0][0],
                line=rest[0][1][0][0],
                revision="head",
            )
        )
    never = [r for r in parted if r.unreached and coverage[r.file].imported]
    if never:
        out.append(
            Finding(
                kind="gradient-unreachable",
                severity=Severity.NOTE,
                message=unreached_words([(r.file, r.unreached, r.functions) for r in never]),
                file=never[0].file,
                line=never[0].unreached[0][0],
                revision="head",
            )
        )
    return out
