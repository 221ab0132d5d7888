"""The words of `dl-lint`'s findings: the rule, why it matters, the fix, and the added line."""

from __future__ import annotations

from collections import Counter

from gradgate.checks.base import Finding, Severity
from gradgate.checks.dl_lint.rules import RULES
from gradgate.checks.dl_lint.scan import Hit
from gradgate.checks.paste import TAKES_EFFECT


def finding(
    hit: Hit,
    severity: Severity,
    path: str,
    code: str,
    reason: str | None,
    *,
    added: str | None = None,
) -> Finding:
    """``added``: what this change adds to the statement that would silence it (its ignore
    comment, in backticks, or "comment"), which does not count (issue 34): the finding stands,
    and says so."""
    rule = RULES[hit.rule]
    why = rule.why.format_map(hit.words)
    fix = rule.fix.format_map(hit.words)
    graded = f" (graded {severity} here: {reason})" if reason else ""
    if added is None:
        mark = f"`# gradgate: ignore[{hit.rule}]`"
        accept = f"; or, if this line is meant: {mark} on it {TAKES_EFFECT}."
    else:
        accept = (
            f". Suppressions added in a pull request do not count until merged: the "
            f"{added} this change adds leaves the finding standing. To accept it, "
            "have an owner merge it over this check, or grade the rule in "
            "`checks.dl-lint.rules`, which "
            f"{TAKES_EFFECT}."
        )
    message = f"`{hit.rule}`{graded}: {why}. Fix: {fix}{accept}"
    return Finding(
        kind=f"lint-{hit.rule}",
        severity=severity,
        message=message,
        file=path,
        line=hit.line,
        details=code,
        details_lang="text",
    )


def unlinted(path: str, why: str, *, made_by_change: bool = False) -> Finding:
    """``made_by_change``: it was linted at base, so the change made it unlintable (blocks)."""
    if made_by_change:
        return Finding(
            kind="lint-unreadable",
            severity=Severity.BLOCKING,
            message=f"`{path}` could not be linted: {why}, while it could at base, so nothing "
            "it adds was checked. Make it parse again as UTF-8 Python of at most 2 MB.",
            file=path,
            revision="head",
        )
    return Finding(
        kind="lint-unreadable",
        severity=Severity.NOTE,
        message=f"`{path}` was not linted: {why}",
        file=path,
    )


def summary(findings: tuple[Finding, ...], linted: int, suppressed: int = 0) -> str:
    counted = Counter(
        f.kind.removeprefix("lint-")
        for f in findings
        if f.kind != "lint-unreadable" or f.severity is Severity.BLOCKING
    )
    if not counted:
        files = "file" if linted == 1 else "files"
        kept = f"; {suppressed} suppressed" if suppressed else ""
        return f"no finding on the lines this change adds ({linted} Python {files} linted{kept})"
    total = sum(counted.values())
    parts = ", ".join(f"{n} `{rule}`" for rule, n in counted.most_common())
    return f"{total} finding{'s' if total != 1 else ''}: {parts}"
