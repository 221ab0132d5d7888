"""The checkpoint check across a factory's named variants: notes and names (pure; issue 35).

The children compare each variant with its namesake at the other revision, a factory's one
model with `default` (``child.policy.variant_key``): its state dict dry-run into the head
variant, its weights loaded there for the equivalence test. Here: a note for each variant at
one revision only (nothing to compare it with), and each variant's findings named. The
default's, and a factory's one model's, read as they always did; another variant's start
"In variant `x`:"; a finding alike in several variants (a rename in code they all run) is one
finding that names them (``gradient.variants.across_variants``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.checkpoint.child.policy import DEFAULT_VARIANT, variant_key
from gradgate.checks.gradient.variants import across_variants

UNPAIRED = "checkpoint-variant-unpaired"


def unpaired(base: Sequence[str | None], head: Sequence[str | None]) -> list[Finding]:
    """A note for each variant that has no namesake at the other revision."""
    base_keys = {variant_key(name) for name in base}
    head_keys = {variant_key(name) for name in head}
    alone = [(variant_key(n), "base") for n in base if variant_key(n) not in head_keys]
    alone += [(variant_key(n), "head") for n in head if variant_key(n) not in base_keys]
    return [
        Finding(
            UNPAIRED,
            Severity.NOTE,
            f"The factory's variant `{name}` is only at {revision}: there is no state dict to "
            "compare it with, so the checkpoint check did not judge it.",
            revision=revision,
        )
        for name, revision in alone
    ]


def named(said: Mapping[str, Sequence[Finding]]) -> list[Finding]:
    """Each variant's findings (by ``variant_key``, in the head's order), naming the variant
    unless it is the default; one finding for what several variants say alike."""
    return across_variants(list(said.items()), plain=DEFAULT_VARIANT)
