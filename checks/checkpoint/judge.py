"""One reference against the head model: what breaks, what is fine by design, what made it load.

Pure: the child's dry runs (``results``) and the checkpoint's keys in, a ``Judgement`` out. The
dry run is the authority on loading (it ran the model's own shims); this module only sorts
what it reported:

- a missing key whose tied twin loaded is one parameter under two names (N3), not missing;
- a checkpoint key the model keeps as a ``persistent=False`` buffer is expected to be left
  over (C6): ``strict=True`` loading fails on it, so it is a warning with the fix;
- a key the model registers only under an environment condition (C5) depends on the machine;
- the rest is a regression, and the leftovers go to ``infer`` for a rename map or a conversion.

When the load succeeds, it says why: the declared migrations that rewrote keys, or the model's
own load hooks when the keys differ yet the dry run was clean (C14).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gradgate.checks.checkpoint.blocks import fold_inference
from gradgate.checks.checkpoint.child.keys import migrate
from gradgate.checks.checkpoint.infer import Inference, infer
from gradgate.checks.checkpoint.results import LoadRun, ModelInfo, Shim
from gradgate.checks.checkpoint.tensors import TensorMeta

SAVED, MIGRATED, SUGGESTED = "saved", "migrated", "suggested"

# Words in a condition that make a key depend on the machine, not on the model's config.
_ENVIRONMENT = re.compile(
    r"cuda|mps|xpu|hasattr|getattr|find_spec|import|environ|getenv|platform|sys\.|version|"
    r"is_available|available|flash|sdpa|scaled_dot_product|triton|xformers|backends|"
    r"ImportError|ModuleNotFoundError|AttributeError",
    re.IGNORECASE,
)


def is_environmental(condition: str) -> bool:
    return bool(_ENVIRONMENT.search(condition))


@dataclass(frozen=True, slots=True)
class Judgement:
    missing: tuple[str, ...]
    unexpected: tuple[str, ...]
    shapes: Mapping[str, tuple[tuple[int, ...], tuple[int, ...]]]
    dtypes: Mapping[str, tuple[str, str]]
    errors: tuple[str, ...]
    non_persistent: tuple[str, ...] = ()  # left-over keys the model keeps out of its state dict
    environmental: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # environmental keys the PR changed here: the base model, built where the check ran,
    # agreed with the checkpoint about them, the head model does not (C5: blocking)
    environment_breaks: tuple[str, ...] = ()
    newly_tied: tuple[tuple[str, ...], ...] = ()  # model ties them; the checkpoint has two
    inference: Inference | None = None
    passed_by: tuple[tuple[str, str | None, int], ...] = ()  # (pattern, replacement, keys)
    shims: tuple[Shim, ...] = ()  # the model's own hooks that made keys load
    # model key -> (file, line) of the code that makes it, in the head revision
    locations: Mapping[str, tuple[str, int]] = field(default_factory=dict)

    @property
    def breaks(self) -> bool:
        return bool(
            self.missing
            or self.unexpected
            or self.shapes
            or self.errors
            or self.newly_tied
            or self.environment_breaks
        )


def migrated_entries(
    entries: Mapping[str, TensorMeta], rules: Sequence[tuple[str, str | None]]
) -> dict[str, TensorMeta]:
    renamed, _used, _dropped = migrate(list(entries), rules)
    return {new: entries[old] for new, old in renamed.items()}


def judge(
    entries: Mapping[str, TensorMeta],
    shared: Sequence[Sequence[str]] | None,
    model: ModelInfo,
    runs: Mapping[str, LoadRun],
    used: Mapping[str, Mapping[int, Sequence[str]]],
    rules: Sequence[tuple[str, str | None]],
    *,
    base_keys: frozenset[str] | None = None,
) -> Judgement:
    """``entries``: the checkpoint's keys after wrapper prefixes were stripped; ``runs``: the
    dry run as saved, and with the declared ``rules`` when there are any; ``base_keys``: the
    base model's keys where the check ran (None: not built), which tells whether the PR made
    an environment-dependent key differ here."""
    run = runs[MIGRATED] if MIGRATED in runs else runs[SAVED]
    keys = migrated_entries(entries, rules) if MIGRATED in runs else dict(entries)
    loaded = set(run.loaded)
    missing, unexpected, environmental = [], [], {}
    for key in run.missing:
        condition = run.conditions.get(key)
        if any(alias in loaded for alias in model.alias_of(key)):
            continue
        if condition is not None and is_environmental(str(condition.get("condition"))):
            environmental[key] = {**condition, "head": True}
        else:
            missing.append(key)
    non_persistent = []
    for key in run.unexpected:
        condition = run.conditions.get(key)
        if key in model.non_persistent:
            non_persistent.append(key)
        elif condition is not None and is_environmental(str(condition.get("condition"))):
            environmental[key] = {**condition, "head": False}
        else:
            unexpected.append(key)
    newly_tied = _newly_tied(model, keys, shared)
    judgement = Judgement(
        missing=tuple(missing),
        unexpected=tuple(unexpected),
        shapes=run.shapes,
        dtypes=run.dtypes,
        errors=run.errors,
        non_persistent=tuple(non_persistent),
        environmental=environmental,
        environment_breaks=tuple(
            key
            for key in environmental
            if base_keys is None or (key in base_keys) != (key in model.entries)
        ),
        newly_tied=newly_tied,
        locations=run.defined,
    )
    if judgement.breaks:
        inference = fold_inference(infer(keys, model.entries, set(unexpected), set(missing)), keys)
        return replace(judgement, inference=inference)
    return replace(
        judgement,
        passed_by=_passed_by(runs, used, rules),
        shims=_shims(model, keys, run),
    )


def _newly_tied(
    model: ModelInfo, keys: Mapping[str, TensorMeta], shared: Sequence[Sequence[str]] | None
) -> tuple[tuple[str, ...], ...]:
    if shared is None:  # a legacy file loaded to meta: its storages cannot be compared
        return ()
    together = [set(group) for group in shared]
    found = []
    for group in model.tied:
        present = [k for k in group if k in keys]
        if len(present) > 1 and not any(set(present) <= s for s in together):
            found.append(tuple(present))
    return tuple(found)


def _passed_by(
    runs: Mapping[str, LoadRun],
    used: Mapping[str, Mapping[int, Sequence[str]]],
    rules: Sequence[tuple[str, str | None]],
) -> tuple[tuple[str, str | None, int], ...]:
    """The declared migrations that made a failing load pass, with how many keys each moved."""
    if MIGRATED not in runs or runs[SAVED].clean:
        return ()
    by_rule = used.get(MIGRATED, {})
    return tuple(
        (rules[index][0], rules[index][1], len(moved))
        for index, moved in sorted(by_rule.items())
        if moved and index < len(rules)
    )


def _shims(model: ModelInfo, keys: Mapping[str, TensorMeta], run: LoadRun) -> tuple[Shim, ...]:
    """The model's hooks, when the keys differ from the model's yet everything loaded."""
    expected = set(model.entries)
    differ = set(keys) - expected or {
        k for k in expected - set(keys) if not any(a in keys for a in model.alias_of(k))
    }
    if not differ or not model.shims:
        return ()
    return model.shims
