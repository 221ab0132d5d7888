"""The words of the `checkpoint` check: a Judgement -> findings: what broke and how to map it.

Pure. Renames come with the map in the exact form `migrations:` accepts (``migration_yaml``),
so a user can paste it under `checks: checkpoint:`; conversions with the load hook to write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gradgate.checks.base import Finding, Severity, Suppression
from gradgate.checks.checkpoint.environment import environment
from gradgate.checks.checkpoint.infer import Conversion, Rename
from gradgate.checks.checkpoint.judge import Judgement
from gradgate.checks.checkpoint.place import Placer
from gradgate.checks.checkpoint.settings import KeyAllowRule
from gradgate.checks.checkpoint.snippets import load_hook, migration_yaml, rule
from gradgate.checks.model.lines import ClassSource, PullDiff

RENAMED = "checkpoint-renamed"
MISSING = "checkpoint-missing-keys"
UNEXPECTED = "checkpoint-unexpected-keys"
SHAPE = "checkpoint-shape-mismatch"
DTYPE = "checkpoint-dtype-mismatch"
CONVERSION = "checkpoint-needs-conversion"
NON_PERSISTENT = "checkpoint-non-persistent-key"
LOAD_ERROR = "checkpoint-load-error"
TIED = "checkpoint-newly-tied"
MIGRATED = "checkpoint-migrated"

_SHOWN = 8  # keys listed in a message; the rest are counted
_PER_KEY = 10  # shape findings, one per key, before the rest are summed up


def keys_text(keys: Sequence[str]) -> str:
    shown = ", ".join(f"`{k}`" for k in keys[:_SHOWN])
    more = len(keys) - _SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _prefix_of(keys: Sequence[str]) -> str:
    """`fc.*` for keys sharing a module path, else the keys themselves."""
    parents = {k.rpartition(".")[0] for k in keys}
    if len(parents) == 1 and "" not in parents and len(keys) > 1:
        return f"`{parents.pop()}.*`"
    return keys_text(keys)


def findings_for(
    judgement: Judgement,
    *,
    label: str,
    file: str | None,
    rules: Sequence[tuple[str, str | None]],
    verified: bool | None,
    dtype_severity: Severity,
    same_outputs: bool | None = None,
    classes: Mapping[str, ClassSource] | None = None,
    diff: PullDiff | None = None,
    allow: Sequence[KeyAllowRule] = (),
) -> tuple[list[Finding], list[Suppression]]:
    """``label`` names the reference in messages ("`ckpt/v1.pt`", "the base model's state
    dict"); ``rules`` are the declared migrations; ``verified``: whether a dry run with the
    suggested map loaded cleanly (None: not tried); ``same_outputs``: whether base weights,
    loaded with that map, gave base's outputs (None: not compared); ``classes`` (the head
    model's) and ``diff`` place findings at the PR's lines; ``allow``: intended breaks. Also
    returns what the config's `allow:` and `migrations:` accepted, for the report (issue 34)."""
    out: list[Finding] = []
    placer = Placer(file, judgement.locations, classes or {}, diff or PullDiff({}), allow)

    def add(
        kind: str,
        severity: Severity,
        message: str,
        details: str | None = None,
        *,
        at: str | None = None,
        keys: Sequence[str] = (),
        drop: bool = False,
    ) -> None:
        """``at``: the model key whose code the finding points at; ``keys``: the keys it
        names, which `allow:` rules match and the pasteable rule covers."""
        out.append(placer.finding(kind, severity, message, details, at=at, keys=keys, drop=drop))

    inference = judgement.inference
    suggested = [(r.pattern, r.replacement) for r in inference.renames] if inference else []
    snippet = migration_yaml([*rules, *suggested]) if suggested else None
    check_note = {
        True: " With this map the checkpoint loads (checked)",
        False: " With this map some keys still do not load; see the other findings",
        None: "",
    }[verified]
    if verified and same_outputs is not None:
        check_note += (
            ", and base weights give the same outputs in the head model"
            if same_outputs
            else ", but the outputs differ; see the behaviour finding"
        )
    check_note += "." if check_note else ""
    for index, rename in enumerate(inference.renames if inference else ()):
        # One map for every rename, printed once: with the first rename's finding.
        message = _renamed(rename, label, first=index == 0) + check_note
        add(
            RENAMED,
            Severity.BLOCKING,
            message,
            snippet if index == 0 else None,
            at=rename.pairs[0][1],
        )
    for conversion in inference.conversions if inference else ():
        message = _conversion(conversion, label)
        at = conversion.parts[0] if conversion.kind == "split" else conversion.fused
        add(CONVERSION, Severity.BLOCKING, message, load_hook(conversion), at=at)
    missing = list(inference.missing) if inference else list(judgement.missing)
    unexpected = list(inference.unexpected) if inference else list(judgement.unexpected)
    if missing:
        add(
            MISSING,
            Severity.BLOCKING,
            f"{label} lacks {len(missing)} key(s) the head model needs: {keys_text(missing)}. "
            "Loading it with `strict=True` fails; with `strict=False` these stay at their "
            "initial values. Restore the parameters, or fill them in a load hook; new "
            "parameters that old checkpoints cannot have (biases turned back on) are accepted "
            "with an `allow` rule.",
            at=missing[0],
            keys=missing,
        )
    if unexpected:
        add(
            UNEXPECTED,
            Severity.BLOCKING,
            f"{label} has {len(unexpected)} key(s) the head model does not: "
            f"{keys_text(unexpected)}. Loading it with `strict=True` fails, and their weights "
            "are dropped. If the tensors moved, map them with `migrations:`.",
            at=unexpected[0],
            keys=unexpected,
            drop=True,
        )
    shapes = list(judgement.shapes.items())
    for key, (saved_shape, wanted_shape) in shapes[:_PER_KEY]:
        add(
            SHAPE,
            Severity.BLOCKING,
            f"`{key}` is {_shape_text(saved_shape)} in {label} but {_shape_text(wanted_shape)} "
            "in the head model: it cannot load. Keep the shape, or convert old checkpoints in a "
            "load hook.",
            at=key,
            keys=[key],
        )
    if shapes[_PER_KEY:]:
        add(SHAPE, Severity.BLOCKING, _more_shapes(shapes[_PER_KEY:], label))
    for key, (saved, wanted) in judgement.dtypes.items():
        add(
            DTYPE,
            dtype_severity,
            f"`{key}` is {saved} in {label} but {wanted} in the head model: load_state_dict "
            f"casts it silently, so the loaded weights are not the saved ones. Keep the dtype, "
            "or set `dtype_changes: warn` if the change is deliberate.",
            at=key,
            keys=[key],
        )
    for group in judgement.newly_tied:
        add(
            TIED,
            Severity.BLOCKING,
            f"The head model ties {keys_text(list(group))} into one parameter, but {label} "
            "holds them as different tensors: loading keeps only the last one and silently "
            "drops the other.",
            keys=list(group),
        )
    for error in judgement.errors:
        add(LOAD_ERROR, Severity.BLOCKING, f"Loading {label} into the head model failed: {error}")
    if judgement.non_persistent:
        add(
            NON_PERSISTENT,
            Severity.WARNING,
            f"{label} carries {keys_text(list(judgement.non_persistent))}, now buffer(s) with "
            "`persistent=False` that the state dict leaves out: `load_state_dict(strict=True)` "
            "fails with an unexpected key. Load with `strict=False`, drop the key in a load "
            f"hook, or declare {rule('^' + _escape(judgement.non_persistent[0]) + '$', None)} "
            "under `migrations:`.",
        )
    for key, condition in judgement.environmental.items():
        out.append(environment(placer, judgement, key, condition, label))
    if not judgement.breaks and (judgement.passed_by or judgement.shims):
        add(MIGRATED, Severity.NOTE, _passed(judgement, label))
    migrated = [
        Suppression(f"migrations: {rule(pattern, replacement)}", "config", file)
        for pattern, replacement, _count in judgement.passed_by
    ]
    return out, [*placer.suppressed, *migrated]


def _escape(key: str) -> str:
    return key.replace(".", r"\.")


def _renamed(rename: Rename, label: str, *, first: bool) -> str:
    old = [a for a, _ in rename.pairs]
    new = [b for _, b in rename.pairs]
    what = "an old name for" if rename.legacy else "now"
    maybe = ""
    if rename.alternatives:
        others = ", ".join(f"`{a}`" for a in rename.alternatives)
        maybe = f" (or {others}: they fit as well; check which one is meant)"
    if rename.old:
        was, now = f"`{rename.old}.*`", f"`{rename.new}.*`"
    else:
        was, now = _prefix_of(old), _prefix_of(new)
    blocks = f", in {rename.copies} blocks alike" if rename.copies > 1 else ""
    if first:
        paste = "paste the map in the details (one map for every rename here) into"
    else:
        paste = (
            f"its rule, {rule(rename.pattern, rename.replacement)}, is in the map of the first "
            "rename finding; paste that map into"
        )
    return (
        f"{was} in {label} is {what} {now}{maybe}{blocks}: {len(old)} key(s) "
        f"with the same shapes no longer load (missing {keys_text(new)}; unexpected "
        f"{keys_text(old)}). If the rename is intended, {paste} `.gradgate.yml`: it declares "
        "the map your loading code applies."
    )


def _shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _conversion(conversion: Conversion, label: str) -> str:
    parts = keys_text(list(conversion.parts))
    fused = f"`{conversion.fused}` {_shape_text(conversion.fused_shape)}"
    sizes = " + ".join(_shape_text(s) for s in conversion.part_shapes)
    if conversion.kind == "split":
        head = f"{fused} in {label} is split in the head model into {parts} ({sizes}, by rows)"
    else:
        head = f"{parts} in {label} are fused in the head model into {fused} ({sizes}, by rows)"
    return (
        f"{head}: this needs a conversion of the tensors, not a rename; a key map cannot do "
        "it. Convert in the model's `_load_from_state_dict` (see details)."
    )


def _more_shapes(
    rest: list[tuple[str, tuple[tuple[int, ...], tuple[int, ...]]]], label: str
) -> str:
    listed = "; ".join(f"`{k}` {_shape_text(a)} -> {_shape_text(b)}" for k, (a, b) in rest[:_SHOWN])
    more = len(rest) - _SHOWN
    return f"{len(rest)} more key(s) of {label} changed shape: {listed}" + (
        f" and {more} more." if more > 0 else "."
    )


def _passed(judgement: Judgement, label: str) -> str:
    parts = []
    if judgement.passed_by:
        rules = "; ".join(
            f"{rule(pattern, replacement)} ({count} key(s))"
            for pattern, replacement, count in judgement.passed_by
        )
        parts.append(f"the declared migrations {rules}")
    if judgement.shims:
        names = ", ".join(
            f"`{s.name}`" + (f" ({s.file}:{s.line})" if s.file else "") for s in judgement.shims
        )
        parts.append(f"the model's own load hooks ({names})")
    return f"{label} loads into the head model thanks to " + " and ".join(parts) + "."
