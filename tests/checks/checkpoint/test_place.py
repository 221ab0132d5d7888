"""Issue 36: the `allow` and `migrations` rules a checkpoint finding prints are not fitted to
the factory's depth: a break in every block of the small model the factory builds is written
`h\\.\\d+\\.`, so the rule still matches a real checkpoint with 12 or 48 layers (pure)."""

from __future__ import annotations

import re

import yaml
from gradgate.bot.config.model import load_config
from gradgate.checks.base import Severity
from gradgate.checks.checkpoint.place import Placer, key_pattern
from gradgate.checks.checkpoint.settings import CheckpointSettings
from gradgate.checks.model.lines import PullDiff

BIASES = ["transformer.h.0.attn.bias", "transformer.h.1.attn.bias"]
MODEL = {
    f"transformer.h.{i}.{p}": ("model.py", 10)
    for i in (0, 1)
    for p in ("ln_1.weight", "mlp.c_fc.weight")
}


def test_a_break_in_every_block_of_the_factory_matches_every_layer_of_a_real_checkpoint() -> None:
    pattern = key_pattern(BIASES, MODEL)
    assert pattern == r"^transformer\.h\.\d+\.attn\.bias$"
    assert re.search(pattern, "transformer.h.47.attn.bias")
    assert not re.search(pattern, "transformer.h.47.attn.c_attn.bias")
    assert key_pattern(BIASES) == pattern  # two copies or more, nothing known of the rest


def test_a_break_in_some_blocks_keeps_their_indices() -> None:
    deeper = {**MODEL, "transformer.h.2.ln_1.weight": ("model.py", 10)}
    assert key_pattern(BIASES, deeper) == r"^transformer\.h\.(0|1)\.attn\.bias$"
    assert key_pattern(["h.1.b", "h.2.b"]) == r"^h\.(1|2)\.b$"  # not from 0: some blocks
    one = ["transformer.h.0.attn.bias"]
    assert key_pattern(one) == r"^transformer\.h\.0\.attn\.bias$"  # one copy, the rest unknown
    assert key_pattern(one, {"transformer.h.0.ln_1.weight": ("m.py", 1)}) == (
        r"^transformer\.h\.\d+\.attn\.bias$"  # a one-layer factory: every layer it has
    )


def test_the_printed_allow_rule_reads_back_and_matches_a_deeper_checkpoint() -> None:
    placer = Placer("ckpt.pt", MODEL, {}, PullDiff({}))
    finding = placer.finding("checkpoint-missing-keys", Severity.BLOCKING, "m.", keys=BIASES)
    assert finding.details is not None
    settings = load_config(yaml.safe_dump({"always": []}) + finding.details)
    checkpoint = settings.settings_for("checkpoint")
    assert isinstance(checkpoint, CheckpointSettings)
    (rule,) = checkpoint.allow
    deep = [f"transformer.h.{i}.attn.bias" for i in range(12)]
    accepting = Placer("ckpt.pt", MODEL, {}, PullDiff({}), checkpoint.allow)
    note = accepting.finding("checkpoint-missing-keys", Severity.BLOCKING, "m.", keys=deep)
    assert note.severity is Severity.NOTE, rule.keys
    dropped = placer.finding("checkpoint-unexpected-keys", Severity.BLOCKING, "m.", keys=BIASES,
                             drop=True)  # fmt: skip
    assert dropped.details is not None and r"'^transformer\.h\.\d+\.attn\.bias$': null" in (
        dropped.details
    )
    # Either rule says where it must live to count (issue 34).
    for said in (finding, dropped):
        assert "the rule counts only from the base branch: merge it there first" in said.message
