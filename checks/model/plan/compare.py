"""The model plan's values, and base against head for each variant (pure).

The child's facts (``child``) come in as :class:`ModelFacts`; ``plan_for`` pairs the variants
by name and says, for each, what the change does to the model: parameters per top-level
module and in total, state-dict keys added, removed, renamed (the checkpoint check's own
inference: ``checks.checkpoint.infer``, folded over repeated blocks) and reshaped, dtype
changes, the module tree where it changed, and forward FLOPs. The values travel as JSON in
the report (``as_json`` / ``plan_from_json``) and reports render them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gradgate.checks.checkpoint.blocks import fold_inference
from gradgate.checks.checkpoint.infer import infer
from gradgate.checks.checkpoint.tensors import TensorMeta, entries_from_json
from pydantic import TypeAdapter, ValidationError


@dataclass(frozen=True, slots=True)
class ModelFacts:
    """One variant of the model at one revision, as the child saw it."""

    variant: str | None
    entries: Mapping[str, TensorMeta]  # the state dict: key -> shape and dtype
    modules: tuple[tuple[str, str], ...]  # (path, class name) in named_modules() order
    parameters: Mapping[str, int]  # top-level module (or root parameter) -> parameters
    flops: int | None = None
    flops_error: str | None = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> ModelFacts:
        variant = value.get("variant")
        return cls(
            variant=None if variant is None else str(variant),
            entries=entries_from_json(value["entries"]),
            modules=tuple((str(path), str(kind)) for path, kind in value["modules"]),
            parameters={str(k): int(n) for k, n in value["parameters"].items()},
            flops=None if value.get("flops") is None else int(value["flops"]),
            flops_error=None if value.get("flops_error") is None else str(value["flops_error"]),
        )


@dataclass(frozen=True, slots=True)
class Count:
    """A number at base and at head (None: there is no such thing on that side)."""

    name: str
    base: int | None
    head: int | None

    @property
    def change(self) -> int:
        return (self.head or 0) - (self.base or 0)

    @property
    def changed(self) -> bool:
        return self.base != self.head


@dataclass(frozen=True, slots=True)
class KeyChange:
    """A state-dict key whose shape or dtype changed: the old and new values as text."""

    key: str
    base: str
    head: str


@dataclass(frozen=True, slots=True)
class Renamed:
    old: str  # module path at base (`fc`, or folded: `blocks.{0..11}.fc`)
    new: str
    keys: int  # state-dict keys it moves


@dataclass(frozen=True, slots=True)
class TreeLine:
    """A module of the tree where it changed: its class at base and head (None: not there);
    unchanged ancestors are listed too, for context."""

    path: str
    base: str | None
    head: str | None
    # Repeated blocks folded into this line: `h.0–11` stands for h.0 … h.11 (12), siblings
    # numbered in a row whose lines (their own and their descendants') are alike.
    count: int = 1

    @property
    def mark(self) -> str:
        if self.base == self.head:
            return " "
        return "+" if self.base is None else "-" if self.head is None else "~"

    @property
    def depth(self) -> int:
        return 0 if not self.path else self.path.count(".") + 1

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class VariantPlan:
    variant: str | None
    changed: bool
    parameters: tuple[Count, ...]  # per top-level module, head's order then base's
    total: Count
    flops: Count
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    renamed: tuple[Renamed, ...] = ()
    reshaped: tuple[KeyChange, ...] = ()
    dtypes: tuple[KeyChange, ...] = ()
    tree: tuple[TreeLine, ...] = ()
    # Why forward FLOPs are not known at base or head ("head: RuntimeError: ..."), if so.
    flops_errors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlanProblem:
    """A revision whose facts could not be had: the plan compares nothing."""

    revision: str
    message: str


@dataclass(frozen=True, slots=True)
class ModelPlan:
    variants: tuple[VariantPlan, ...] = ()
    problems: tuple[PlanProblem, ...] = ()

    @property
    def changed(self) -> bool:
        return any(v.changed for v in self.variants)


def plan_for(base: Sequence[ModelFacts], head: Sequence[ModelFacts]) -> ModelPlan:
    """Each variant at head against its namesake at base (a variant on one side only is all
    added or all removed), in head's order, then base's leftovers."""
    at_base = {f.variant: f for f in base}
    at_head = {f.variant: f for f in head}
    names = list(dict.fromkeys([*at_head, *at_base]))
    return ModelPlan(tuple(compare(at_base.get(n), at_head.get(n), variant=n) for n in names))


def compare(
    base: ModelFacts | None, head: ModelFacts | None, *, variant: str | None
) -> VariantPlan:
    old_entries = base.entries if base else {}
    new_entries = head.entries if head else {}
    removed = {k for k in old_entries if k not in new_entries}
    added = {k for k in new_entries if k not in old_entries}
    renamed: list[Renamed] = []
    if removed and added:
        inference = fold_inference(infer(old_entries, new_entries, removed, added), old_entries)
        for rename in inference.renames:
            renamed.append(Renamed(rename.old, rename.new, len(rename.pairs)))
            removed -= {a for a, _ in rename.pairs}
            added -= {b for _, b in rename.pairs}
    common = [k for k in new_entries if k in old_entries]
    reshaped = tuple(
        KeyChange(k, old_entries[k].shape_text, new_entries[k].shape_text)
        for k in common
        if old_entries[k].shape != new_entries[k].shape
    )
    dtypes = tuple(
        KeyChange(k, old_entries[k].dtype, new_entries[k].dtype)
        for k in common
        if old_entries[k].dtype != new_entries[k].dtype
    )
    old_counts = base.parameters if base else {}
    new_counts = head.parameters if head else {}
    parameters = tuple(
        Count(name, old_counts.get(name), new_counts.get(name))
        for name in dict.fromkeys([*new_counts, *old_counts])
    )
    total = Count(
        "total",
        None if base is None else sum(old_counts.values()),
        None if head is None else sum(new_counts.values()),
    )
    flops = Count("forward", base.flops if base else None, head.flops if head else None)
    errors = tuple(
        f"{side}: {facts.flops_error}"
        for side, facts in (("base", base), ("head", head))
        if facts is not None and facts.flops_error
    )
    tree = tree_changes(base.modules if base else (), head.modules if head else ())
    plan = VariantPlan(
        variant=variant,
        changed=False,
        parameters=parameters,
        total=total,
        flops=flops,
        added=tuple(k for k in new_entries if k in added),
        removed=tuple(k for k in old_entries if k in removed),
        renamed=tuple(renamed),
        reshaped=reshaped,
        dtypes=dtypes,
        tree=tree,
        flops_errors=errors,
    )
    changed = bool(plan.added or plan.removed or plan.renamed or reshaped or dtypes or tree) or any(
        c.changed for c in (*parameters, total, flops)
    )
    return dataclasses.replace(plan, changed=changed)


def tree_changes(
    base: Sequence[tuple[str, str]], head: Sequence[tuple[str, str]]
) -> tuple[TreeLine, ...]:
    """The modules added, removed or of another class, each after its ancestors (listed once,
    as context), in head's order with base's removed modules after their base predecessor."""
    old, new = dict(base), dict(head)
    order = list(new)
    place = {path: i for i, path in enumerate(order)}
    before = ""
    for path in old:  # a removed module goes after the one before it at base
        if path not in place:
            at = place.get(before, -1) + 1
            order.insert(at, path)
            place = {p: i for i, p in enumerate(order)}
        before = path
    changed = {p for p in order if old.get(p) != new.get(p)}
    shown = set(changed)
    for path in changed:
        parts = path.split(".") if path else []
        shown |= {".".join(parts[:n]) for n in range(len(parts))}
    return folded(tuple(TreeLine(p, old.get(p), new.get(p)) for p in order if p in shown))


def folded(lines: Sequence[TreeLine]) -> tuple[TreeLine, ...]:
    """``lines`` (each after its parent) with runs of alike numbered siblings folded into one
    line each: `h.0 … h.11` of the same classes, changed the same way, read `h.0–11` (12×)."""
    kids: dict[str, list[TreeLine]] = {}
    roots: list[TreeLine] = []
    known = {line.path for line in lines}
    for line in lines:
        parent = line.path.rpartition(".")[0]  # a top-level module's is the model's, ""
        if line.path and parent in known:
            kids.setdefault(parent, []).append(line)
        else:
            roots.append(line)
    shapes: dict[str, Any] = {}

    def shape(line: TreeLine) -> Any:
        if line.path not in shapes:
            inner = tuple((k.name, shape(k)) for k in kids.get(line.path, ()))
            shapes[line.path] = (line.base, line.head, inner)
        return shapes[line.path]

    out: list[TreeLine] = []

    def emit(line: TreeLine, shown: str, count: int = 1) -> None:
        out.append(TreeLine(shown, line.base, line.head, count))
        children = kids.get(line.path, [])
        at = 0
        while at < len(children):
            first, end = children[at], at + 1
            while (
                end < len(children)
                and first.name.isdigit()
                and children[end].name.isdigit()
                and int(children[end].name) == int(children[end - 1].name) + 1
                and shape(children[end]) == shape(first)
            ):
                end += 1
            name = first.name if end - at == 1 else f"{first.name}–{children[end - 1].name}"
            emit(first, f"{shown}.{name}" if shown else name, end - at)
            at = end

    for root in roots:
        emit(root, root.path)
    return tuple(out)


def as_json(plan: ModelPlan) -> dict[str, Any]:
    return {"changed": plan.changed, **dataclasses.asdict(plan)}


@functools.cache
def _adapter() -> TypeAdapter[ModelPlan]:
    # Built when first needed: `gradgate plan` imports the report's module, and reads no plan.
    return TypeAdapter(ModelPlan)


def plan_from_json(value: Any) -> ModelPlan:
    """``as_json(plan)`` back into a ModelPlan; ValueError naming the first problem."""
    try:
        return _adapter().validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise ValueError(f"model_plan.{where}: {first['msg']}") from None
