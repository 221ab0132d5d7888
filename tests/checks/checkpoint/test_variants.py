"""Variants in the checkpoint check's words: which are noted, how findings name them (pure)."""

from __future__ import annotations

import pytest
from gradgate.checks.base import Finding, Severity
from gradgate.checks.checkpoint.variants import named, unpaired

RENAMED = Finding("checkpoint-renamed", Severity.BLOCKING, "`gate.*` ... is now `attn_gate.*`.")
WIDER = Finding("checkpoint-shape-mismatch", Severity.BLOCKING, "`fc.weight` is [4, 16] ...")

# (id, each variant's findings, the messages reported)
NAMED = [
    ("one-model", {"default": [RENAMED]}, [RENAMED.message]),
    ("default-reads-as-before", {"default": [RENAMED], "gated": []}, [RENAMED.message]),
    ("another-variant-is-named", {"default": [], "gated": [RENAMED]},
     [f"In variant `gated`: {RENAMED.message}"]),
    ("alike-in-every-variant-is-one-finding", {"default": [WIDER], "gated": [WIDER]},
     [f"In every variant (`default`, `gated`): {WIDER.message}"]),
    ("alike-in-some", {"default": [], "gated": [WIDER], "wide": [WIDER]},
     [f"In variants `gated`, `wide`: {WIDER.message}"]),
    ("said-twice-by-one-variant-is-said-once", {"gated": [RENAMED, RENAMED], "default": []},
     [f"In variant `gated`: {RENAMED.message}"]),
]  # fmt: skip


@pytest.mark.parametrize(("said", "messages"), [r[1:] for r in NAMED], ids=[r[0] for r in NAMED])
def test_findings_name_their_variant_unless_it_is_the_default(
    said: dict[str, list[Finding]], messages: list[str]
) -> None:
    assert [f.message for f in named(said)] == messages


# (id, base's variants, head's variants, the notes: (variant, revision))
UNPAIRED = [
    ("same-names", ["default", "gated"], ["default", "gated"], []),
    ("one-model-pairs-with-default", [None], ["default", "gated"], [("gated", "head")]),
    ("dropped-at-head", ["default", "gated"], [None], [("gated", "base")]),
    ("renamed-variant", ["default", "flash"], ["default", "sdpa"],
     [("flash", "base"), ("sdpa", "head")]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("base", "head", "notes"), [r[1:] for r in UNPAIRED], ids=[r[0] for r in UNPAIRED]
)
def test_a_variant_at_one_revision_only_is_a_note(
    base: list[str | None], head: list[str | None], notes: list[tuple[str, str]]
) -> None:
    found = unpaired(base, head)

    assert all(f.severity is Severity.NOTE for f in found)
    assert [(f.message.split("`")[1], f.revision) for f in found] == notes
