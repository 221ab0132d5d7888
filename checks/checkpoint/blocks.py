"""One rename per cause: prefix renames repeated in every block fold into one rule (pure).

``infer`` finds `blocks.0.mlp.fc` -> `blocks.0.mlp.ffn` once per block; a 48-layer model would
get 48 findings, each with its own map (issue 20). Renames whose old and new prefixes are the
same once the block indices are set aside, with the same indices on both sides, are one
rename: `'^blocks\\.(\\d+)\\.mlp\\.fc\\.': 'blocks.\\1.mlp.ffn.'`. The pattern is checked
against every key of the checkpoint: where `(\\d+)` would also reach blocks that load as
they are, the indices are listed instead (`(0|1|2)`), so the rule never breaks a key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from gradgate.checks.checkpoint.infer import Inference, Rename
from gradgate.checks.checkpoint.tensors import TensorMeta
from gradgate.checks.fold import PLACE, fold, split


def fold_inference(inference: Inference, checkpoint: Mapping[str, TensorMeta]) -> Inference:
    return replace(inference, renames=tuple(fold_renames(inference.renames, checkpoint)))


def fold_renames(renames: Sequence[Rename], checkpoint: Mapping[str, TensorMeta]) -> list[Rename]:
    groups: dict[tuple[str, str], list[Rename]] = {}
    alone: list[Rename] = []
    order: list[tuple[str, str] | Rename] = []
    for rename in renames:
        old_template, old_numbers = split(rename.old)
        new_template, new_numbers = split(rename.new)
        foldable = (
            not rename.legacy
            and not rename.alternatives
            and rename.old
            and old_numbers
            and old_numbers == new_numbers
        )
        if not foldable:
            alone.append(rename)
            order.append(rename)
            continue
        key = (old_template, new_template)
        if key not in groups:
            order.append(key)
        groups.setdefault(key, []).append(rename)
    out = []
    for item in order:
        if isinstance(item, Rename):
            out.append(item)
            continue
        group = groups[item]
        out.append(group[0] if len(group) == 1 else _merged(item, group, checkpoint))
    return out


def _merged(
    templates: tuple[str, str], group: Sequence[Rename], checkpoint: Mapping[str, TensorMeta]
) -> Rename:
    old_template, new_template = templates
    pairs = tuple(pair for rename in group for pair in rename.pairs)
    moved = {a for a, _ in pairs}
    pattern = _pattern(old_template, [r"\d+"] * old_template.count(PLACE))
    if {k for k in checkpoint if re.search(pattern, k)} != moved:
        columns = zip(*(split(r.old)[1] for r in group), strict=True)
        pattern = _pattern(
            old_template, ["|".join(str(n) for n in sorted(set(c))) for c in columns]
        )
    replacement = new_template
    for index in range(1, new_template.count(PLACE) + 1):
        replacement = replacement.replace(PLACE, f"\\{index}", 1)
    (old_folded,) = fold(r.old for r in group)
    (new_folded,) = fold(r.new for r in group)
    return Rename(
        pattern,
        replacement + ".",
        pairs,
        old=old_folded.text,
        new=new_folded.text,
        copies=len(group),
    )


def _pattern(template: str, groups: Sequence[str]) -> str:
    parts = [re.escape(part) for part in template.split(PLACE)]
    out = "^" + parts[0]
    for group, rest in zip(groups, parts[1:], strict=True):
        out += f"({group})" + rest
    return out + r"\."
