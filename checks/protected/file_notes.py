"""Notes and findings about a whole file the `protected` check could not compare as it is (pure):
skipped, compared as text because it does not parse, or unreadable where it held protected lines.
"""

from __future__ import annotations

from gradgate.checks.base import Finding, Severity
from gradgate.checks.protected.findings import AS_TEXT, SKIPPED, UNREADABLE, code_span
from gradgate.checks.protected.markers import Unit


def skipped(path: str, why: str) -> Finding:
    return Finding(
        kind=SKIPPED,
        severity=Severity.NOTE,
        message=f"{code_span(path)} was not scanned for protected lines: {why}. Check it by hand.",
        file=path,
    )


def parsed_as_text(path: str, revision: str, error: str) -> Finding:
    return Finding(
        kind=AS_TEXT,
        severity=Severity.NOTE,
        message=f"{code_span(path)} does not parse as Python at {revision} ({error}); its "
        "protected lines were compared as text, so a pure reformat may show as a change.",
        file=path,
        revision=revision,
    )


def unreadable(path: str, revision: str, why: str, *, held: Unit | None) -> Finding:
    """A file that held protected lines at base (``held``: the first) and cannot be compared."""
    if held is None:  # the base itself cannot be read, but its bytes mention a marker
        what = f"{code_span(path)} mentions a marker at base, but {why} there"
    else:
        first = code_span(held.where)
        what = f"{code_span(path)} held protected lines at base (the first at {first}), and at "
        what += f"{revision} {why}"
    return Finding(
        kind=UNREADABLE,
        severity=Severity.BLOCKING,
        message=f"{what}, so gradgate cannot tell whether protected lines changed. Keep the "
        "file UTF-8 text under the size limit (not binary, a symlink or a submodule), or "
        "remove the protection in a separate reviewed PR (or ask an owner).",
        file=path,
        line=held.marker_line if held else None,
        revision="base",
    )
