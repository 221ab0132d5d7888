"""Words for what the children report: a reference torch would not load, changed outputs (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gradgate.checks.base import Finding, Severity
from gradgate.checks.checkpoint.child.policy import KNOWN_KEYS, MIN_TORCH
from gradgate.checks.checkpoint.findings import keys_text
from gradgate.checks.checkpoint.results import EquivalenceResult
from gradgate.checks.checkpoint.snippets import migration_yaml

TORCH_TOO_OLD = "checkpoint-torch-too-old"
NOT_A_STATE_DICT = "checkpoint-not-a-state-dict"
LOAD_FAILED = "checkpoint-unreadable"
BEHAVIOUR = "checkpoint-behaviour-changed"
NOT_COMPARED = "checkpoint-behaviour-not-compared"
SKIPPED = "checkpoint-equivalence-skipped"
BUILT_FOR_REAL = "checkpoint-built-for-real"

_NEED = ".".join(str(n) for n in MIN_TORCH)


def reference_error(error: Mapping[str, Any], *, label: str, file: str | None) -> Finding:
    kind = error.get("kind")
    if kind == "old-torch":
        return Finding(
            TORCH_TOO_OLD,
            Severity.BLOCKING,
            f"Reference {label} is a torch.save file, which gradgate loads only with torch "
            f">= {_NEED} (`weights_only=True` had holes before); the model's interpreter has "
            f"torch {error.get('torch')}. Upgrade torch there, or convert the reference to "
            "safetensors, whose header gradgate reads without torch.",
            file=file,
        )
    if kind == "not-a-state-dict":
        known = ", ".join(f"`{k}`" for k in KNOWN_KEYS)
        return Finding(
            NOT_A_STATE_DICT,
            Severity.BLOCKING,
            f"Reference {label} holds no state dict where gradgate looked: {error.get('message')}. "
            f"Set `key:` on the reference (default: the top level, else {known}).",
            file=file,
        )
    return Finding(
        LOAD_FAILED,
        Severity.BLOCKING,
        f"Reference {label} could not be loaded with `torch.load(weights_only=True)`: "
        f"{error.get('message')}",
        file=file,
    )


def equivalence_findings(
    result: EquivalenceResult, *, rules: Sequence[tuple[str, str | None]], quiet: bool = False
) -> list[Finding]:
    """``quiet``: other findings block already; "not compared" would only repeat them."""
    details = result.details
    if not result.compared and details.get("raised"):
        return [
            Finding(
                NOT_COMPARED,
                Severity.WARNING,
                "Outputs were not compared: the head model, with base weights loaded, raised "
                f"on the base model's example inputs: {details.get('raised')}. If the inputs "
                "changed on purpose, nothing to do; otherwise the model no longer runs them.",
                revision="head",
            )
        ]
    if not result.compared:
        if quiet:
            return []
        missing = list(details.get("missing") or ())
        unexpected = list(details.get("unexpected") or ())
        return [
            Finding(
                NOT_COMPARED,
                Severity.NOTE,
                "Outputs were not compared: base weights do not load into the head model "
                f"(missing {keys_text(missing) or 'none'}; unexpected "
                f"{keys_text(unexpected) or 'none'}); the key findings say why.",
            )
        ]
    if result.equal:
        return []
    reason = details.get("reason")
    if reason == "count":
        what = (
            f"the head model returns {details.get('head')} output tensor(s), base "
            f"{details.get('base')}"
        )
    elif reason == "shape":
        what = (
            f"output {details.get('index')} has shape {details.get('head')} at head but "
            f"{details.get('base')} at base"
        )
    else:
        what = (
            f"output {details.get('index')} differs by up to {details.get('max_abs_diff'):.3g} "
            "(beyond `equivalence.atol`/`rtol`)"
        )
    migrated = " after the declared migrations" if rules else ""
    return [
        Finding(
            BEHAVIOUR,
            Severity.BLOCKING,
            f"Base weights load into the head model{migrated}, but it computes something else "
            f"on the same input: {what}. Keys and shapes agree, so metadata cannot show this: "
            "a weight used transposed, weights newly tied or untied, or changed forward code. "
            "Old checkpoints would load silently and mean something else.",
            details=migration_yaml(rules) if rules else None,
        )
    ]


def equivalence_skipped(parameters: object) -> Finding:
    count = f"{parameters:,}" if isinstance(parameters, int) else "too many"
    return Finding(
        SKIPPED,
        Severity.NOTE,
        f"Behavioural equivalence was not checked: the model has {count} parameters, above "
        "`equivalence.max_parameters`; it would be built twice with real weights.",
    )


def built_for_real(error: str | None) -> Finding:
    return Finding(
        BUILT_FOR_REAL,
        Severity.NOTE,
        f"The model factory fails on the meta device ({error}), so the head model was built "
        "with real weights: the check needs as much memory as the model.",
        revision="head",
    )
