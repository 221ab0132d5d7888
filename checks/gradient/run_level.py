"""Findings about the run as a whole: the graph cut before any parameter, unregistered tensors,
hooks that pile up, weights tied or untied (pure)."""

from __future__ import annotations

from gradgate.checks.base import Finding, Severity
from gradgate.checks.gradient.classify import State
from gradgate.checks.gradient.compare import Comparison
from gradgate.checks.gradient.group import cover
from gradgate.checks.gradient.words import count, listing


def run_level(c: Comparison) -> list[Finding]:
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
