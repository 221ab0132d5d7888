"""The PR's changed code the model did not run: one line per PR, in two parts (issue 36).

The head child recorded which changed lines of code ran while the model (every variant) was
built and stepped (``model.coverage``); what did not run was not tested by this check. What a
variant could run (``reach``) is one warning that names what turns it on: a variant with that
flag covers it. What no forward pass reaches (`configure_optimizers`, `from_pretrained`) is one
note, in files the model imports; elsewhere nothing: no model check can run such code. Never a
block: the PR may be right, the check just cannot vouch for it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.gradient.reach import reach
from gradgate.checks.gradient.words import factory_shape, unreached_words, untested_words
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
    could = [r for r in parted if r.reachable]
    if could:
        first = could[0]
        flag = next((g for r in could for g in r.guards), None)
        out.append(
            Finding(
                kind="gradient-untested",
                severity=Severity.WARNING,
                message=untested_words([(r.file, r.reachable, r.guards) for r in could], variants),
                file=first.file,
                line=first.reachable[0][0],
                revision="head",
                details=factory_shape(first.file, first.reachable, variants, flag),
                details_lang="python",
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
