"""Base's and head's facts -> the behaviour check's findings, each at the line that explains it.

Invariants (``child.invariants``) block when one held at base and breaks at head. An eval-mode
forward that changes buffers at both revisions is a warning; an eval output random at both is
the model's design (a diffusion step), and a model not causal at base is not a sequence model:
neither is reported. Same weights (``child.probe``): the first of these that differs blocks,
the later ones following from it are not repeated: the eval outputs (naming the first module
whose output differs while its inputs agreed), the train-mode loss (both values), the
gradients (the first parameter, in backward order, whose gradient differs), the eval outputs
and buffers after two training steps. An initialisation that differs from the same seed is a
warning: it is often intended. A finding an `allow` rule of the (base's) config accepts is a
note, and the rule is listed with the report's suppressions (issue 34). Pure: values in,
findings out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase
from typing import Any

from gradgate.checks.base import Finding, Severity, Suppression
from gradgate.checks.behaviour import words
from gradgate.checks.behaviour.facts import VariantFacts
from gradgate.checks.gradient.variants import in_variant
from gradgate.checks.model.lines import ClassSource, PullDiff, Spot, changed_line, locate
from gradgate.checks.paste import allow_yaml

PREFIX = "behaviour-"
LOSS = "<loss>"  # what an `allow` pattern matches for the loss; the model's own forward: MODEL
MODEL = "<model>"
Said = tuple[Finding, str | None]  # a finding and the module it is about (None: none)
# The edits that explain a gradient that changed while the outputs did not.
_DETACH = (".detach()", ".detach_()", ".data", "torch.no_grad", "torch.inference_mode",
           "torch.set_grad_enabled")  # fmt: skip


def judge(
    base: Sequence[VariantFacts],
    head: Sequence[VariantFacts],
    diff: PullDiff,
    allow: Sequence[tuple[str, str]] = (),
) -> tuple[list[Finding], list[Suppression]]:
    """Every variant of head compared with its namesake at base. ``allow``: (pattern, reason)
    rules; a finding about a module that matches becomes a note that shows the reason, and
    the rule that accepted it a suppression from the config."""
    by_key = {facts.key: facts for facts in base}
    found: list[Finding] = []
    accepted: list[Suppression] = []
    for facts in head:
        there = by_key.pop(facts.key, None)
        if there is None:
            found.append(_note("variant-unpaired", words.unpaired(facts.key, "head")))
            continue
        said = [*invariant_findings(there, facts, diff), *same_weight_findings(facts, diff)]
        weighed = [_accepted(f, subject, allow) for f, subject in said]
        found += in_variant([finding for finding, _ in weighed], facts.variant)
        accepted += [rule for _, rule in weighed if rule is not None]
    found += [_note("variant-unpaired", words.unpaired(key, "base")) for key in by_key]
    return found, accepted


def invariant_findings(base: VariantFacts, head: VariantFacts, diff: PullDiff) -> list[Said]:
    found: list[Said] = []
    for name in ("eval-random", "eval-state", "causality"):
        before = base.invariants.get(name) or {}
        after = head.invariants.get(name) or {}
        if after.get("holds") is not False:
            continue
        if before.get("holds") is True:
            severity = Severity.BLOCKING
        elif before.get("holds") is False and name == "eval-state":
            severity = Severity.WARNING
        else:
            continue  # random or non-causal by design, or not probed at base
        module = _module_of(name, after)
        spot = _spot(module, head, diff)
        message = words.INVARIANT[name](after, module, head.classes, spot, severity)
        found.append((_at(Finding(PREFIX + name, severity, message), spot), module))
    return found


def same_weight_findings(head: VariantFacts, diff: PullDiff) -> list[Said]:
    same = head.same
    found = _init_findings(same.get("init") or [], head, diff)
    if not same.get("compared"):
        why = same.get("why")
        if why == "raised":
            message = words.raised(str(same.get("error")))
            found.append((Finding(PREFIX + "not-compared", Severity.WARNING, message), None))
        elif why in ("not-loaded", "too-large"):
            found.append((_note("not-compared", words.not_compared(str(why))), None))
        return found
    outputs = same.get("outputs") or {}
    loss = same.get("loss") or {}
    gradients = same.get("gradients") or {}
    if not outputs.get("equal", True):
        first = same.get("first")
        module = None if first is None else str(first["module"])
        spot = _spot(module, head, diff)
        message = words.output_changed(outputs, first, head.classes, spot)
        found.append(
            (_at(Finding(PREFIX + "output-changed", Severity.BLOCKING, message), spot), module)
        )
    elif not loss.get("equal", True):
        spot = _loss_spot(head.loss_source, diff)
        message = words.loss_changed(loss, spot)
        found.append(
            (_at(Finding(PREFIX + "loss-changed", Severity.BLOCKING, message), spot), LOSS)
        )
    elif not gradients.get("equal", True):
        first = gradients["differ"][0]
        module = _owner(str(first["parameter"]))
        spot = _spot(module, head, diff, constructs=_DETACH)
        message = words.gradient_changed(gradients, head.classes, spot)
        finding = Finding(PREFIX + "gradient-changed", Severity.BLOCKING, message)
        found.append((_at(finding, spot), module))
    elif not (same.get("after") or {}).get("equal", True) or same.get("buffers"):
        buffers = same.get("buffers") or []
        module = _owner(str(buffers[0]["name"])) if buffers else None
        spot = _spot(module, head, diff)
        message = words.training_changed(same.get("after") or {}, buffers, spot)
        finding = Finding(PREFIX + "training-changed", Severity.BLOCKING, message)
        found.append((_at(finding, spot), module))
    return found


def _init_findings(changed: Sequence[Mapping[str, Any]], head: VariantFacts,
                   diff: PullDiff) -> list[Said]:  # fmt: skip
    if not changed:
        return []
    module = _owner(str(changed[0]["name"]))
    spot = _spot(module, head, diff)
    message = words.init_changed(changed, spot)
    return [(_at(Finding(PREFIX + "init-changed", Severity.WARNING, message), spot), module)]


def _module_of(name: str, result: Mapping[str, Any]) -> str | None:
    if name == "eval-state":
        buffers = result.get("buffers") or []
        return _owner(str(buffers[0]["name"])) if buffers else None
    first = result.get("first")
    return None if first is None else str(first["module"])


def _owner(tensor: str) -> str:
    """The module that holds a parameter or buffer: `blocks.0.ln.weight` -> `blocks.0.ln`."""
    return tensor.rpartition(".")[0]


def _spot(module: str | None, head: VariantFacts, diff: PullDiff,
          constructs: Sequence[str] = ()) -> Spot | None:  # fmt: skip
    if module is None:
        return None
    return locate([module], head.classes, diff, constructs=constructs)


def _loss_spot(source: ClassSource | None, diff: PullDiff) -> Spot | None:
    if source is None:
        return None
    line = changed_line(diff, source)
    if line is None:
        return None
    return Spot(source.file, line, True, words.at_loss(source.class_name))


def _at(finding: Finding, spot: Spot | None) -> Finding:
    if spot is None:
        return finding
    return replace(finding, file=spot.file, line=spot.line)


def _accepted(
    finding: Finding, module: str | None, allow: Sequence[tuple[str, str]]
) -> tuple[Finding, Suppression | None]:
    """The finding as a note with the reason when an `allow` pattern matches its module, and
    the rule as the suppression it is; a blocking one otherwise carries the rule to paste."""
    if module is None or finding.severity is Severity.NOTE:
        return finding, None
    subject = MODEL if module == "" else module
    for pattern, reason in allow:
        if fnmatchcase(subject, pattern):
            message = f"{finding.message} {words.allowed(reason)}"
            rule = Suppression(f"allow: {pattern}", "config", finding.file, finding.line, reason)
            return replace(finding, severity=Severity.NOTE, message=message), rule
    if finding.severity is not Severity.BLOCKING:
        return finding, None
    message = f"{finding.message} {words.ALLOW_HINT}"
    return replace(finding, message=message, details=allow_yaml("behaviour", [subject]),
                   details_lang="yaml"), None  # fmt: skip


def _note(kind: str, message: str) -> Finding:
    return Finding(PREFIX + kind, Severity.NOTE, message)
