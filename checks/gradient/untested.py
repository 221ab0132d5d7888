"""The PR's changed code the model did not run: one warning per file (issue 20, point 5).

The head child recorded which changed lines of code ran while the model (every variant) was
built and stepped (``model.coverage``); what did not run was not tested by this check. A
warning, never a block: the PR may be right, the check just cannot vouch for it. It says how
to cover the code: a factory variant that builds the feature.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.gradient.words import factory_shape, untested_words
from gradgate.checks.model.coverage import FileCoverage, untested
from gradgate.checks.model.lines import PullDiff


def untested_findings(
    coverage: Mapping[str, FileCoverage],
    diff: PullDiff,
    *,
    variants: Sequence[str] = (),
    model_files: Collection[str] = (),
) -> list[Finding]:
    """``variants``: the factory's variant names at head (none: it returns one model);
    ``model_files``: changed paths in zones that require the check (the model's, imported or
    not)."""
    return [
        Finding(
            kind="gradient-untested",
            severity=Severity.WARNING,
            message=untested_words(u.file, u.ranges, variants),
            file=u.file,
            line=u.ranges[0][0],
            revision="head",
            details=factory_shape(u.file, u.ranges, variants),
            details_lang="python",
        )
        for u in untested(coverage, diff.head_lines, model_files=model_files)
    ]
