"""A factory's named variants at base and head, paired for comparison (pure; issue 20, point 3).

A factory may return ``{"default": ..., "flash": ...}``: each variant is measured at both
revisions and compared with its namesake. A factory that returned one model at one revision
and variants at the other (the PR that introduced them) pairs that model with `default`, else
with the first variant. A variant at one revision only is a note: nothing to compare it with.
Findings about a named variant say which one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from gradgate.checks.base import Finding, Severity
from gradgate.checks.gradient.facts import RevisionFacts
from gradgate.checks.gradient.words import unpaired_words


@dataclass(frozen=True, slots=True)
class Pair:
    name: str | None  # the variant's name (head's, else base's); None: one model
    base: RevisionFacts
    head: RevisionFacts


def pair(
    base: Sequence[RevisionFacts], head: Sequence[RevisionFacts]
) -> tuple[list[Pair], list[Finding]]:
    """The variants compared, in head's order, and notes for those at one revision only."""
    if base[0].variant is None or head[0].variant is None:  # one model (at one revision)
        one, many = (base, head) if base[0].variant is None else (head, base)
        chosen = next((f for f in many if f.variant == "default"), many[0])
        b, h = (one[0], chosen) if one is base else (chosen, one[0])
        pairs = [Pair(chosen.variant, b, h)]
        alone = [f for f in many if f is not chosen]
    else:
        base_by = {f.variant: f for f in base}
        pairs = [Pair(h.variant, base_by[h.variant], h) for h in head if h.variant in base_by]
        paired = {p.name for p in pairs}
        alone = [f for f in (*base, *head) if f.variant not in paired]
    notes = [
        Finding(
            kind="gradient-variant-unpaired",
            severity=Severity.NOTE,
            message=unpaired_words(str(f.variant), f.revision),
        )
        for f in alone
    ]
    return pairs, notes


def in_variant(findings: Sequence[Finding], name: str | None) -> list[Finding]:
    """``findings`` about the variant ``name``, saying so (unchanged for a single model)."""
    if name is None:
        return list(findings)
    return [replace(f, message=f"In variant `{name}`: {f.message}") for f in findings]


def across_variants(
    said: Sequence[tuple[str | None, Sequence[Finding]]], *, plain: str | None = None
) -> list[Finding]:
    """Each variant's findings, one finding for what several variants say alike (issue 36:
    one `.detach()` in a block every variant runs is one cause, not a finding per variant),
    naming the variants it holds for. A finding of the variant ``plain`` alone reads as a
    single model's (the checkpoint check's `default`: its findings read as they always did)."""
    alike: dict[Finding, list[str | None]] = {}
    for name, findings in said:
        for f in findings:
            names = alike.setdefault(f, [])
            if name not in names:  # said twice by one variant: once
                names.append(name)
    out = []
    for f, names in alike.items():
        if len(names) == 1 or None in names:
            out += in_variant([f], None if names[0] == plain else names[0])
            continue
        every = len(names) == len(said)
        shown = ", ".join(f"`{n}`" for n in names)
        where = f"In every variant ({shown})" if every else f"In variants {shown}"
        out.append(replace(f, message=f"{where}: {f.message}"))
    return out
