"""Why keys went missing: renames a key map can fix, and fused/split tensors it cannot (pure).

Given the checkpoint's keys (after wrapper prefixes and declared migrations), the model's keys,
and the keys left over on each side, ``infer`` proposes, in this order:

1. known legacy renames: ``gamma``/``beta`` -> ``weight``/``bias``, and old ``weight_norm``'s
   ``weight_g``/``weight_v`` <-> ``parametrizations.weight.original0/1``;
2. prefix renames, found by module shape signature: for a leftover checkpoint key and a
   leftover model key with the same shape and a common tail (``fc.weight`` /
   ``classifier.weight``), the heads differ (``fc`` -> ``classifier``). A candidate is kept only
   if *every* checkpoint key under the old prefix is left over and lands on a leftover model
   key, so it cannot break a key that loads; the candidate that explains most keys wins, the
   more general on a tie, so a wrapped submodule is one rule (C3), not one per key. Two
   candidates that explain the same keys equally well are ambiguous and named as such;
3. fused <-> split tensors: a leftover ``attn.qkv.weight`` [3d, d] whose rows are exactly the
   leftover ``attn.{q,k,v}.weight`` [d, d] (or the reverse) needs a conversion (``torch.chunk``
   / ``torch.cat``) in a load hook: a key map cannot do it (C9).

Prefix renames that differ only by block index (`blocks.0.fc` -> `blocks.0.ffn`, ...,
`blocks.11.fc` -> `blocks.11.ffn`) fold into one rule over the indices (``fold_renames``), so
a rename inside a repeated block is one finding with one map, not one per block (``blocks``).

Every rename is a ``(pattern, replacement)`` pair in the form ``migrations:`` accepts.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Set
from dataclasses import dataclass

from gradgate.checks.checkpoint.tensors import TensorMeta

# (old leaf, new leaf): names older code (or other frameworks) gave the same tensors.
LEGACY = (
    ("gamma", "weight"),
    ("beta", "bias"),
    ("weight_g", "parametrizations.weight.original0"),
    ("weight_v", "parametrizations.weight.original1"),
    ("parametrizations.weight.original0", "weight_g"),
    ("parametrizations.weight.original1", "weight_v"),
)
_MAX_PAIRS = 4_000_000  # leftover pairs compared at most; past it, only equal-depth keys


@dataclass(frozen=True, slots=True)
class Rename:
    pattern: str
    replacement: str
    pairs: tuple[tuple[str, str], ...]  # (checkpoint key, model key) it maps
    legacy: bool = False
    alternatives: tuple[str, ...] = ()  # other model prefixes that fit as well: ambiguous
    # The module paths it maps, as the report names them: `fc` -> `classifier`, or folded
    # over repeated blocks, `blocks.{0..11}.mlp.fc` -> `blocks.{0..11}.mlp.ffn` (``copies``).
    old: str = ""
    new: str = ""
    copies: int = 1


@dataclass(frozen=True, slots=True)
class Conversion:
    kind: str  # "split": one checkpoint tensor -> several model tensors; "fuse": the reverse
    fused: str  # the key of the one tensor
    parts: tuple[str, ...]  # the keys of the several, in row order
    fused_shape: tuple[int, ...]
    part_shapes: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Inference:
    renames: tuple[Rename, ...]
    conversions: tuple[Conversion, ...]
    unexpected: tuple[str, ...]  # checkpoint keys nothing explains
    missing: tuple[str, ...]  # model keys nothing explains


def infer(
    checkpoint: Mapping[str, TensorMeta],
    model: Mapping[str, TensorMeta],
    unexpected: Set[str],
    missing: Set[str],
) -> Inference:
    left_u = {k for k in unexpected if k in checkpoint}
    left_m = {k for k in missing if k in model}
    renames: list[Rename] = []
    for old, new in LEGACY:
        rename = _legacy(old, new, checkpoint, model, left_u, left_m)
        if rename is not None:
            renames.append(rename)
            left_u -= {a for a, _ in rename.pairs}
            left_m -= {b for _, b in rename.pairs}
    while True:
        rename = _best_prefix(checkpoint, model, left_u, left_m)
        if rename is None:
            break
        renames.append(rename)
        left_u -= {a for a, _ in rename.pairs}
        left_m -= {b for _, b in rename.pairs}
    conversions = _conversions(checkpoint, model, left_u, left_m)
    for conversion in conversions:
        left_u -= {conversion.fused} if conversion.kind == "split" else set(conversion.parts)
        left_m -= set(conversion.parts) if conversion.kind == "split" else {conversion.fused}
    return Inference(
        renames=tuple(renames),
        conversions=tuple(conversions),
        unexpected=tuple(k for k in checkpoint if k in left_u),
        missing=tuple(k for k in model if k in left_m),
    )


def _legacy(
    old: str,
    new: str,
    checkpoint: Mapping[str, TensorMeta],
    model: Mapping[str, TensorMeta],
    left_u: Set[str],
    left_m: Set[str],
) -> Rename | None:
    pairs = []
    for key in checkpoint:
        if key == old or key.endswith("." + old):
            target = key[: len(key) - len(old)] + new
            if key not in left_u or target not in left_m:
                return None  # the rule would touch a key that loads, or lead nowhere
            pairs.append((key, target))
    if not pairs:
        return None
    pattern = r"(^|\.)" + re.escape(old) + "$"
    return Rename(pattern, r"\g<1>" + new, tuple(pairs), legacy=True)


def _components(key: str) -> list[str]:
    return key.split(".")


def _candidates(
    left_u: Set[str], left_m: Set[str], model: Mapping[str, TensorMeta]
) -> set[tuple[str, str]]:
    by_leaf: dict[str, list[str]] = defaultdict(list)
    for key in left_m:
        by_leaf[key.rsplit(".", 1)[-1]].append(key)
    budget = _MAX_PAIRS
    found: set[tuple[str, str]] = set()
    for u in sorted(left_u):
        cu = _components(u)
        for m in by_leaf.get(cu[-1], ()):
            budget -= 1
            if budget < 0 and len(_components(m)) != len(cu):
                continue
            cm = _components(m)
            common = 0
            while common < min(len(cu), len(cm)) and cu[-1 - common] == cm[-1 - common]:
                common += 1
            for tail in range(1, common + 1):
                found.add((".".join(cu[:-tail]), ".".join(cm[:-tail])))
    return found


def _best_prefix(
    checkpoint: Mapping[str, TensorMeta],
    model: Mapping[str, TensorMeta],
    left_u: Set[str],
    left_m: Set[str],
) -> Rename | None:
    scored: list[tuple[int, bool, int, str, str, tuple[tuple[str, str], ...]]] = []
    for old, new in _candidates(left_u, left_m, model):
        if old == new:
            continue
        pairs = _maps(old, new, checkpoint, model, left_u, left_m)
        if pairs:
            same = sum(checkpoint[a].shape == model[b].shape for a, b in pairs)
            if same:
                # A rename inside repeated blocks keeps the block's index: `blocks.0.fc` is
                # `blocks.0.ffn`, not the equally shaped `blocks.1.ffn`.
                moved = _indices(old) != _indices(new)
                scored.append((same, moved, old.count(".") + bool(old), old, new, pairs))
    if not scored:
        return None
    # Most keys explained with equal shapes; the block indices kept; then the shortest old
    # prefix (the most general).
    scored.sort(key=lambda item: (-item[0], item[1], item[2], item[3], item[4]))
    best = scored[0]
    rivals = tuple(
        new
        for same, moved, depth, old, new, pairs in scored[1:]
        if (same, moved, depth, old) == best[:4]
        and {a for a, _ in pairs} == {a for a, _ in best[5]}
    )
    return Rename(
        _pattern(best[3]),
        _replacement(best[4]),
        best[5],
        alternatives=rivals,
        old=best[3],
        new=best[4],
    )


def _indices(prefix: str) -> list[str]:
    return [part for part in prefix.split(".") if part.isdigit()]


def _maps(
    old: str,
    new: str,
    checkpoint: Mapping[str, TensorMeta],
    model: Mapping[str, TensorMeta],
    left_u: Set[str],
    left_m: Set[str],
) -> tuple[tuple[str, str], ...]:
    """The (old key, new key) pairs of the rule old -> new, or () if it would break a key."""
    head = old + "." if old else ""
    pairs = []
    for key in checkpoint:
        if not key.startswith(head):
            continue
        target = (new + "." if new else "") + key[len(head) :]
        if key not in left_u or target not in left_m:
            return ()
        pairs.append((key, target))
    return tuple(pairs)


def _pattern(old: str) -> str:
    return "^" + re.escape(old + ".") if old else "^"


def _replacement(new: str) -> str:
    return new + "." if new else ""


def _conversions(
    checkpoint: Mapping[str, TensorMeta],
    model: Mapping[str, TensorMeta],
    left_u: Set[str],
    left_m: Set[str],
) -> list[Conversion]:
    found = []
    for one, many, kind, source, other in (
        (left_u, left_m, "split", checkpoint, model),
        (left_m, left_u, "fuse", model, checkpoint),
    ):
        taken: set[str] = set()
        for key in sorted(one):
            parts = _parts(key, source[key], many - taken, other)
            if parts:
                taken |= set(parts)
                found.append(
                    Conversion(
                        kind=kind,
                        fused=key,
                        parts=parts,
                        fused_shape=source[key].shape,
                        part_shapes=tuple(other[p].shape for p in parts),
                    )
                )
    return found


def _parts(
    key: str, fused: TensorMeta, pool: Set[str], other: Mapping[str, TensorMeta]
) -> tuple[str, ...]:
    """Keys beside ``key`` (same parent module, same leaf) whose rows add up to it."""
    module, _, leaf = key.rpartition(".")
    parent, _, name = module.rpartition(".")
    if not fused.shape or not name:
        return ()
    siblings = []
    for candidate in pool:
        c_module, _, c_leaf = candidate.rpartition(".")
        c_parent, _, c_name = c_module.rpartition(".")
        shape = other[candidate].shape
        if (c_parent, c_leaf) == (parent, leaf) and c_name != name and shape[1:] == fused.shape[1:]:
            siblings.append((c_name, candidate))
    if len(siblings) < 2 or sum(other[c].shape[0] for _, c in siblings) != fused.shape[0]:
        return ()
    ordered = _spelled_order(name, siblings)
    return tuple(c for _, c in ordered)


def _spelled_order(fused: str, siblings: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Order parts as the fused name spells them (`qkv` -> q, k, v; `qkv_proj` -> q_proj...)."""

    def position(item: tuple[str, str]) -> tuple[int, str]:
        stem = item[0]
        for cut in range(len(stem), 0, -1):
            index = fused.find(stem[:cut])
            if index >= 0:
                return index, stem
        return len(fused), stem

    return sorted(siblings, key=position)
