"""A Comparison -> the check's findings, grouped by module prefix (pure).

One finding per module prefix and kind of change (``group.cover``), each saying what changed
and the likely cause; allowed changes become notes that carry the rule's reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.gradient.classify import State
from gradgate.checks.gradient.compare import Change, Comparison, Row
from gradgate.checks.gradient.facts import RevisionFacts
from gradgate.checks.gradient.group import cover, parent_module
from gradgate.checks.gradient.words import (
    ALLOW_HINT,
    CAUSES,
    STATE_WORDS,
    count,
    failure_detail,
    listing,
    ratio_words,
    subject,
)

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
}
# States whose cause is in some module's forward: point the finding at that code.
_IN_FORWARD = {State.DETACHED, State.NO_GRAD, State.NEVER_EXECUTED, State.ZERO}


def findings_for(c: Comparison) -> list[Finding]:
    found: list[Finding] = []
    cut_at_head = c.cut[1] is not None and c.cut[0] is None
    for change in SEVERITY:
        rows = [r for r in c.changed(change) if r.allowed is None]
        if change is Change.LOST and cut_at_head:
            continue  # the graph finding explains every one of them
        for state in dict.fromkeys(r.head for r in rows):
            group = [r for r in rows if r.head is state]
            found += _grouped(c, change, state, group)
    found += _allowed(c)
    found += _run_level(c)
    return found


def _universe(c: Comparison, change: Change) -> list[str]:
    gone = change in (Change.REMOVED, Change.BECAME_BUFFER)
    facts = c.base if gone else c.head
    return [p.name for p in facts.params]


def _grouped(c: Comparison, change: Change, state: State | None, rows: list[Row]) -> list[Finding]:
    """One finding per module whose parts changed alike: the prefixes that cover the rows,
    gathered under the module that uses them (`blocks.3.up.*`, `blocks.3.down.*`)."""
    by_parent: dict[str, tuple[list[str], list[str]]] = {}
    for pattern, members in cover([r.name for r in rows], _universe(c, change)):
        patterns, names = by_parent.setdefault(parent_module(pattern), ([], []))
        patterns.append(pattern)
        names += members
    out = []
    for patterns, members in by_parent.values():
        message, file, line, revision = _say(c, change, state, patterns, members, rows)
        out.append(
            Finding(
                kind=f"gradient-{change.value}",
                severity=SEVERITY[change],
                message=message,
                file=file,
                line=line,
                revision=revision,
            )
        )
    return out


def _say(
    c: Comparison, change: Change, state: State | None, patterns: list[str],
    members: Sequence[str], rows: Sequence[Row],
) -> tuple[str, str | None, int | None, str | None]:  # fmt: skip
    who = subject(patterns, members)
    where = _where(c.head, patterns[0]) if state in _IN_FORWARD else (None, None, None)
    file, line, revision = where
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
        text = f"{who} {new} but learn{s} nothing ({word}): {cause}."
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
            "at base, with the same weights and batch: a gradient path was added or cut "
            "(e.g. a `.detach()` in one term of the loss)."
        )
    else:  # STILL_DEAD
        text = f"{who} {be} {word} at base and at head, so this change did not cause it: {cause}."
    return text, file, line, revision


def _where(facts: RevisionFacts, pattern: str) -> tuple[str | None, int | None, str | None]:
    """The forward of the module that calls what ``pattern`` names, when it is user code."""
    source = facts.sources.get(parent_module(pattern))
    if source is None:
        return None, None, None
    return source.file, source.line, facts.revision


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


def _run_level(c: Comparison) -> list[Finding]:
    out: list[Finding] = []
    base_cut, head_cut = c.cut
    if head_cut is not None:
        lost = [r.name for r in c.rows if r.base is State.OK and r.head is not None and r.head.dead]
        patterns = [p for p, _ in cover(lost, [p.name for p in c.head.params])]
        what = (
            "the model's output has no grad_fn: its last ops ran under `torch.no_grad()` / "
            "`inference_mode()` or on detached values"
            if head_cut == "output"
            else "the loss has no grad_fn although the outputs do: it was computed through "
            "`.item()`, `.tolist()`, numpy or `.detach()` and wrapped in a new tensor"
        )
        if base_cut is None:
            text = (
                f"At head {what}, so nothing learns ({count(len(lost), 'parameter')} learned at "
                f"base: {listing(patterns)})."
            )
            out.append(Finding("gradient-graph-cut", Severity.BLOCKING, text, revision="head"))
        else:
            text = f"At base and at head {what}, so nothing learns; this change did not cause it."
            out.append(Finding("gradient-graph-cut", Severity.NOTE, text))
    new, both = c.unregistered
    if new:
        out.append(Finding(
            "gradient-unregistered", Severity.BLOCKING,
            f"Trainable tensors reached from the loss at head are not registered parameters, so "
            f"`parameters()` and the optimizer never see them: {listing(new)}. Keep layers in "
            "`nn.ModuleList` / `nn.ModuleDict` and tensors as `nn.Parameter`.", revision="head",
        ))  # fmt: skip
    if both:
        out.append(Finding(
            "gradient-unregistered", Severity.NOTE,
            f"Trainable tensors reached from the loss are not registered parameters at base and "
            f"at head: {listing(both)}.",
        ))  # fmt: skip
    grown, grown_both = c.hooks
    if grown:
        shown = ", ".join(f"`{n}` ({' → '.join(map(str, counts))})" for n, counts in grown[:8])
        out.append(Finding(
            "gradient-hooks-accumulate", Severity.BLOCKING,
            f"Hooks pile up at head, one more every step, so gradients are rescaled again each "
            f"step: {shown} hooks after each step. A `register_hook` (or module hook) call in "
            "`forward` adds one per call; register it once, in `__init__`.", revision="head",
        ))  # fmt: skip
    if grown_both:
        out.append(Finding(
            "gradient-hooks-accumulate", Severity.NOTE,
            f"Hooks pile up every step at base and at head: {listing(grown_both)}.",
        ))  # fmt: skip
    for names in c.untied:
        base_total = sum(p.numel for p in c.base.params if p.trainable)
        head_total = sum(p.numel for p in c.head.params if p.trainable)
        out.append(Finding(
            "gradient-untied", Severity.WARNING,
            f"{listing(names)} were one tied parameter at base and are separate parameters at "
            f"head (trainable parameters {base_total:,} → {head_total:,}): each now learns "
            "alone. If the tie was meant, assign the same `nn.Parameter` "
            "(`head.weight = emb.weight`).", revision="head",
        ))  # fmt: skip
    for names in c.tied:
        out.append(Finding(
            "gradient-tied", Severity.NOTE,
            f"{listing(names)} were separate parameters at base and are one tied parameter at "
            "head.",
        ))  # fmt: skip
    return out
