"""A Comparison as findings: blocking unless an `allow` rule covers every difference (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from fnmatch import fnmatchcase

from gradgate.checks.base import Finding, Severity, Suppression
from gradgate.checks.data.compare import Comparison, Difference, OutputChange
from gradgate.checks.data.settings import AllowRule
from gradgate.checks.paste import TAKES_EFFECT

_NONDETERMINISM = (
    "{revision}'s transform gave different outputs for {outputs} on two calls with the same "
    "input and the same seeds (random, NumPy, torch): {where}. Seed it from the global RNGs "
    "so the data path can be compared."
)
_SOMETHING = (
    "something draws from an unseeded random number generator (e.g. `random.Random()`, "
    "`np.random.default_rng()` without a seed, or `os.urandom`)"
)
_AT = (
    "the two calls first differ in what `{file}:{line}` (`{code}`) computes, which draws from "
    "an unseeded random number generator (or another source that differs per call, such as "
    "`os.urandom` or the clock)"
)


def _reason(change: OutputChange, difference: Difference, allow: Sequence[AllowRule]) -> str | None:
    for rule in allow:
        if rule.change in ("any", difference.kind) and fnmatchcase(change.output, rule.output):
            return rule.reason
    return None


def accepted(c: Comparison, *, allow: Sequence[AllowRule]) -> tuple[Suppression, ...]:
    """What the config's `allow` rules accepted, for the report's list (issue 34): one per
    output whose every difference a rule covers (the changes ``findings_for`` turns to notes)."""
    out = []
    for change in c.changes:
        reasons = [_reason(change, d, allow) for d in change.differences]
        if all(reason is not None for reason in reasons):
            kinds = ", ".join(dict.fromkeys(d.kind for d in change.differences))
            why = "; ".join(dict.fromkeys(r for r in reasons if r is not None))
            out.append(Suppression(f"allow: {change.output} ({kinds})", "config", reason=why))
    return tuple(out)


def findings_for(c: Comparison, *, allow: Sequence[AllowRule]) -> tuple[Finding, ...]:
    found: list[Finding] = []
    for change in c.changes:
        reasons = [_reason(change, d, allow) for d in change.differences]
        said = "; ".join(d.words for d in change.differences)
        subject = "the transform's input" if change.output == "input" else f"`{change.output}`"
        if all(reason is not None for reason in reasons):
            why = "; ".join(dict.fromkeys(r for r in reasons if r is not None))
            message = f"{subject} changed as allowed: {said} (allowed: {why})"
            found.append(
                Finding(kind="data-changed-allowed", severity=Severity.NOTE, message=message)
            )
            continue
        message = (
            f"{subject} changed for the same input and seeds: {said}. If this is intended, "
            "add an `allow` rule with its reason under `checks.data` in .gradgate.yml; the rule "
            f"{TAKES_EFFECT}."
        )
        found.append(
            Finding(
                kind="data-changed", severity=Severity.BLOCKING, message=message, revision="head"
            )
        )
    for revision, outputs in c.nondeterministic.items():
        named = ", ".join(f"`{name}`" for name in outputs)
        site = c.unseeded.get(revision)
        where = _SOMETHING if site is None else _AT.format(**asdict(site))
        message = _NONDETERMINISM.format(revision=revision.capitalize(), outputs=named, where=where)
        at_head = revision == "head" and site is not None
        found.append(
            Finding(
                kind="data-nondeterministic",
                severity=Severity.WARNING if revision == "head" else Severity.NOTE,
                message=message,
                revision=revision,
                file=site.file if at_head and site else None,
                line=site.line if at_head and site else None,
            )
        )
    return tuple(found)
