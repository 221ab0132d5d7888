"""The words of `dl-lint`'s findings: the rule, why it matters, the fix, and the added line."""

from __future__ import annotations

from collections import Counter

from gradgate.checks.base import Finding, Severity
from gradgate.checks.dl_lint.rules import RULES
from gradgate.checks.dl_lint.scan import Hit


def finding(hit: Hit, severity: Severity, path: str, code: str, reason: str | None) -> Finding:
    rule = RULES[hit.rule]
    why = rule.why.format_map(hit.words)
    fix = rule.fix.format_map(hit.words)
    graded = f" (graded {severity} here: {reason})" if reason else ""
    message = (
        f"`{hit.rule}`{graded}: {why}. Fix: {fix}; or, if this line is meant, add "
        f"`# gradgate: ignore[{hit.rule}]` to it."
    )
    return Finding(
        kind=f"lint-{hit.rule}",
        severity=severity,
        message=message,
        file=path,
        line=hit.line,
        details=code,
        details_lang="text",
    )


def unlinted(path: str, why: str) -> Finding:
    return Finding(
        kind="lint-unreadable",
        severity=Severity.NOTE,
        message=f"`{path}` was not linted: {why}",
        file=path,
    )


def summary(findings: tuple[Finding, ...], linted: int) -> str:
    counted = Counter(f.kind.removeprefix("lint-") for f in findings if f.kind != "lint-unreadable")
    if not counted:
        files = "file" if linted == 1 else "files"
        return f"no finding on the lines this change adds ({linted} Python {files} linted)"
    total = sum(counted.values())
    parts = ", ".join(f"{n} `{rule}`" for rule, n in counted.most_common())
    return f"{total} finding{'s' if total != 1 else ''}: {parts}"
