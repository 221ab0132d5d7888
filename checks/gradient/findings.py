"""A Comparison -> the check's findings, grouped by module prefix (pure).

One finding per module prefix and kind of change (``group.cover``), each saying what changed
and the likely cause; allowed changes become notes that carry the rule's reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradgate.checks.base import Finding, Severity, Suppression
from gradgate.checks.gradient.classify import State
from gradgate.checks.gradient.compare import Change, Comparison, Row, allow_rule_for
from gradgate.checks.gradient.group import Group, cover, fold_groups, merged, parent_module
from gradgate.checks.gradient.magnitudes import magnitudes
from gradgate.checks.gradient.run_level import run_level
from gradgate.checks.gradient.settings import AllowRule
from gradgate.checks.gradient.words import (
    ALLOW_HINT,
    CAUSES,
    STATE_WORDS,
    allow_patterns,
    blocks_words,
    failure_detail,
    ratio_words,
    subject,
)
from gradgate.checks.model.lines import PullDiff, Spot, locate
from gradgate.checks.paste import allow_yaml

SEVERITY = {
    Change.LOST: Severity.BLOCKING,
    Change.FROZEN: Severity.BLOCKING,
    Change.NEW_DEAD: Severity.BLOCKING,
    Change.BECAME_BUFFER: Severity.BLOCKING,
    Change.WEAKENED: Severity.WARNING,
    Change.NEW_TINY: Severity.WARNING,
    Change.REMOVED: Severity.NOTE,
    Change.NORM_RATIO: Severity.WARNING,
    Change.STILL_DEAD: Severity.NOTE,
    Change.GAINED: Severity.WARNING,  # weighed by `checks.gradient.gained`
}
# States whose cause is in some module's code: point the finding at the line that explains
# it (``model.lines``), by the kinds of edit that can cause it.
_DETACH = (".detach()", ".detach_()", ".data", "torch.no_grad", "torch.inference_mode",
           "torch.set_grad_enabled")  # fmt: skip
_FREEZE = (".requires_grad_()", ".requires_grad", "requires_grad=")
_EXPLAINED_BY = {
    State.DETACHED: _DETACH,
    State.NO_GRAD: _DETACH,
    State.NEVER_EXECUTED: (),
    State.ZERO: (),
    State.FROZEN: _FREEZE,
}


def findings_for(
    c: Comparison, *, gained: Severity = Severity.WARNING, diff: PullDiff | None = None
) -> list[Finding]:
    """``diff``: the PR's changed lines, so each finding points at the one that explains it."""
    found: list[Finding] = []
    diff = diff or PullDiff({})
    weights = {**SEVERITY, Change.GAINED: gained}
    cut_at_head = c.cut[1] is not None and c.cut[0] is None
    for change in SEVERITY:
        rows = [r for r in c.changed(change) if r.allowed is None]
        if change is Change.LOST and cut_at_head:
            continue  # the graph finding explains every one of them
        for state in dict.fromkeys(r.head for r in rows):
            group = [r for r in rows if r.head is state]
            found += _grouped(c, change, state, group, weights[change], diff)
    found += _allowed(c)
    found += run_level(c)
    return found


def _universe(c: Comparison, change: Change) -> list[str]:
    gone = change in (Change.REMOVED, Change.BECAME_BUFFER)
    facts = c.base if gone else c.head
    return [p.name for p in facts.params]


def _grouped(
    c: Comparison, change: Change, state: State | None, rows: list[Row], severity: Severity,
    diff: PullDiff,
) -> list[Finding]:  # fmt: skip
    """One finding per module whose parts changed alike: the prefixes that cover the rows,
    gathered under the module that uses them (`blocks.3.up.*`, `blocks.3.down.*`), and one for
    all the copies of a repeated block that changed alike (`blocks.{0..11}.up.*`)."""
    universe = _universe(c, change)
    by_parent: dict[str, tuple[list[str], list[str]]] = {}
    for pattern, members in cover([r.name for r in rows], universe):
        patterns, names = by_parent.setdefault(parent_module(pattern), ([], []))
        patterns.append(pattern)
        names += members
    groups = fold_groups(list(by_parent.values()), universe)
    spots = [_spot(c, change, state, g, diff) for g in groups]
    # Groups the PR cut off at one changed line have one cause: one finding for them all
    # (issue 36: one `.detach()` in a repeated block cut off every block before it whole, and
    # the same block in part, and made six blocking findings).
    # Where only one changed line explains any of them, it explains the rest too (an
    # embedding before the cut points at no line of its own).
    causes = {(s.file, s.line) for s in spots if s is not None and s.changed}
    only = next(iter(causes)) if len(causes) == 1 else None
    by_cause: dict[object, list[int]] = {}
    for i, spot in enumerate(spots):
        key = (spot.file, spot.line) if spot is not None and spot.changed else (only or i)
        by_cause.setdefault(key, []).append(i)
    out = []
    for indices in by_cause.values():
        parts = [groups[i] for i in indices]
        group = parts[0] if len(parts) == 1 else merged(parts)
        spot = next((spots[i] for i in indices if (s := spots[i]) and s.changed), spots[indices[0]])
        message, file, line, revision = _say(c, change, state, group, rows, spot)
        blocking = severity is Severity.BLOCKING
        patterns = list(dict.fromkeys(p for g in parts for p in allow_patterns(g)))
        out.append(
            Finding(
                kind=f"gradient-{change.value}",
                severity=severity,
                message=message,
                file=file,
                line=line,
                revision=revision,
                details=allow_yaml("gradient", patterns) if blocking else None,
                details_lang="yaml",
            )
        )
    return out


def _say(
    c: Comparison, change: Change, state: State | None, group: Group, rows: Sequence[Row],
    spot: Spot | None,
) -> tuple[str, str | None, int | None, str | None]:  # fmt: skip
    members = group.members
    who = ", and ".join(
        subject(list(part.shown), part.members) + blocks_words(part)
        for part in (group.parts or (group,))
    )
    file, line = (spot.file, spot.line) if spot else (None, None)
    revision = "head" if spot else None
    cause = CAUSES.get(state, "") if state is not None else ""
    if state is State.NON_FINITE:
        cause += failure_detail(c.head.failure)
        failure = c.head.failure
        if failure is not None and failure.file and not failure.file.startswith("/"):
            file, line, revision = failure.file, failure.line, "head"
    word = STATE_WORDS.get(state, "") if state is not None else ""
    many = len(members) > 1
    be, was = ("are", "were") if many else ("is", "was")
    trainable = "trainable parameters" if many else "a trainable parameter"
    s = "" if many else "s"
    if change is Change.LOST:
        text = f"{who} learned at base and {be} {word} at head: {cause}; {ALLOW_HINT}."
    elif change is Change.FROZEN:
        text = f"{who} learned at base and {be} frozen at head: {cause}; {ALLOW_HINT}."
    elif change is Change.NEW_DEAD:
        new = f"{was} frozen at base, trainable at head," if rows[0].base else f"{be} new at head"
        text = f"{who} {new} but learn{s} nothing ({word}): {cause}; {ALLOW_HINT}."
    elif change is Change.WEAKENED:
        text = f"{who} learned at base; at head {cause}."
    elif change is Change.NEW_TINY:
        text = f"{who} {be} new at head and {cause}."
    elif change is Change.BECAME_BUFFER:
        text = (
            f"{who} {was} {trainable} at base and {be} a buffer at head "
            "(`register_buffer` instead of `nn.Parameter`): the optimizer no longer updates "
            f"{'them' if many else 'it'}; {ALLOW_HINT}."
        )
    elif change is Change.REMOVED:
        text = f"{who} {was} {trainable} at base and {be} gone at head (removed or renamed)."
        if c.unregistered[0]:
            text += " Some layers run without being registered: see the unregistered tensors."
    elif change is Change.NORM_RATIO:
        ratios = [r.ratio for r in rows if r.name in members and r.ratio is not None]
        text = (
            f"{who} still learn{s}, but the gradient norm is {ratio_words(ratios)} at head than "
            "at base, at the first step from the same seed and batch: a gradient path was "
            "added or cut (e.g. a `.detach()` in one term of the loss), or the PR changed how "
            "the weights are initialised, and then the weights differ too. "
            f"{magnitudes(c, members)}"
        )
    elif change is Change.GAINED:
        was_word = " / ".join(dict.fromkeys(STATE_WORDS[r.base] for r in rows if r.base))
        # One f-string, never `.format` after it: the names (`blocks.{0..3}.up.*`) hold
        # braces, and formatting them again raised KeyError (issue 36).
        them, they = ("them", "they") if many else ("it", "it")
        text = (
            f"{who} learned nothing at base ({was_word}) and learn{s} at head: the change "
            f"that cut {them} off was undone, so {they} now train{s} and what downstream code sees "
            "moves. If that is intended, nothing to do; `checks.gradient.gained` "
            "(note, warning, blocking) sets how much this weighs."
        )
    else:  # STILL_DEAD
        text = f"{who} {be} {word} at base and at head, so this change did not cause it: {cause}."
    if spot is not None:
        text += f" ({spot.words}.)"
    return text, file, line, revision


def _spot(
    c: Comparison, change: Change, state: State | None, group: Group, diff: PullDiff
) -> Spot | None:
    """The line that explains the finding: where the head code cut (or, for a gained
    gradient, uncut) these parameters off, or their class when no line of it changed."""
    if change is Change.GAINED:
        constructs: tuple[str, ...] = ()
    elif state in _EXPLAINED_BY:
        constructs = _EXPLAINED_BY[state]
    else:
        return None
    modules = [
        p.removesuffix(".*") if p.endswith(".*") else p.rpartition(".")[0] for p in group.raw
    ]
    return locate(
        modules, c.head.sources, diff, constructs=constructs, anywhere=state is State.FROZEN
    )


def accepted(c: Comparison, allow: Sequence[AllowRule]) -> list[Suppression]:
    """What the config's `allow` rules accepted, for the report's list (issue 34): one per rule
    and kind of change (the notes of ``_allowed``)."""
    found: dict[tuple[str, Change], str] = {}
    for row in c.rows:
        rule = allow_rule_for(row, allow)
        if rule is not None and row.change is not None:
            found.setdefault((rule.pattern, row.change), rule.reason)
    return [
        Suppression(f"allow: {pattern} ({change.value})", "config", reason=reason)
        for (pattern, change), reason in found.items()
    ]


def _allowed(c: Comparison) -> list[Finding]:
    rows = [r for r in c.rows if r.change is not None and r.allowed is not None]
    out = []
    for reason in dict.fromkeys(r.allowed for r in rows):
        mine = [r for r in rows if r.allowed == reason]
        for change in dict.fromkeys(r.change for r in mine):
            assert change is not None
            names = [r.name for r in mine if r.change is change]
            covered = cover(names, _universe(c, change))
            patterns = [pattern for pattern, _ in covered]
            members = [name for _, group in covered for name in group]
            out.append(
                Finding(
                    kind=f"gradient-{change.value}",
                    severity=Severity.NOTE,
                    message=f"{subject(patterns, members)}: {change.value.replace('-', ' ')} "
                    f"at head, allowed by the config: {reason}",
                )
            )
    return out
