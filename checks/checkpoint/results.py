"""The child's JSON answers as frozen values: each variant's model, each load, each reference,
equivalence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gradgate.checks.checkpoint.tensors import TensorMeta, entries_from_json
from gradgate.checks.model.lines import ClassSource, parse_sources


def inside(path: Any, root: Path) -> str | None:
    """A path the child reported, relative to the revision's tree; None outside it."""
    if not isinstance(path, str):
        return None
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Shim:
    name: str  # "TinyClassifier._load_from_state_dict", "MyModel._rename_hook"
    module: str  # the module path it sits on ("" for the root)
    file: str | None
    line: int | None


@dataclass(frozen=True, slots=True)
class ModelInfo:
    entries: Mapping[str, TensorMeta]
    kinds: Mapping[str, str]  # key -> "parameter" | "buffer"
    tied: tuple[tuple[str, ...], ...]  # keys that are one tensor
    non_persistent: tuple[str, ...]
    versions: Mapping[str, Any]
    parameters: int
    shims: tuple[Shim, ...] = ()
    meta: bool = True  # built on the meta device (False: the factory failed there)
    meta_error: str | None = None
    # module path -> where its class is written in the revision's tree (head only)
    classes: Mapping[str, ClassSource] = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> ModelInfo:
        return cls(
            entries=entries_from_json(value["entries"]),
            kinds=dict(value["kinds"]),
            tied=tuple(tuple(group) for group in value["tied"]),
            non_persistent=tuple(value["non_persistent"]),
            versions=dict(value["versions"]),
            parameters=int(value["parameters"]),
            shims=tuple(Shim(**shim) for shim in value.get("shims", ())),
            meta=bool(value.get("meta", True)),
            meta_error=value.get("meta_error"),
            classes=parse_sources(value.get("classes", {})),
        )

    def relative_to(self, root: Path) -> ModelInfo:
        """The shims' files relative to the revision's tree the child ran in."""
        shims = tuple(replace(s, file=inside(s.file, root)) for s in self.shims)
        return replace(self, shims=shims)

    def alias_of(self, key: str) -> tuple[str, ...]:
        """The other names of the tensor ``key`` names (tied weights); () if none."""
        for group in self.tied:
            if key in group:
                return tuple(k for k in group if k != key)
        return ()


@dataclass(frozen=True, slots=True)
class LoadRun:
    """What one dry run of load_state_dict did."""

    missing: tuple[str, ...]
    unexpected: tuple[str, ...]
    shapes: Mapping[str, tuple[tuple[int, ...], tuple[int, ...]]]  # key -> (checkpoint, model)
    dtypes: Mapping[str, tuple[str, str]]  # key -> (checkpoint, model)
    loaded: tuple[str, ...]
    errors: tuple[str, ...]
    conditions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    defined: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # key -> file, line

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> LoadRun:
        return cls(
            missing=tuple(value["missing"]),
            unexpected=tuple(value["unexpected"]),
            shapes={k: (tuple(a), tuple(b)) for k, a, b in value["shapes"]},
            dtypes={k: (a, b) for k, a, b in value["dtypes"]},
            loaded=tuple(value["loaded"]),
            errors=tuple(value["errors"]),
            conditions=dict(value.get("conditions", {})),
            defined={
                key: (str(where["file"]), int(where["line"]))
                for key, where in value.get("defined", {}).items()
                if where.get("file") and where.get("line")
            },
        )

    def relative_to(self, root: Path) -> LoadRun:
        conditions = {
            key: {**condition, "file": inside(condition.get("file"), root)}
            for key, condition in self.conditions.items()
        }
        defined = {}
        for key, (file, line) in self.defined.items():
            relative = inside(file, root)
            if relative is not None:  # a module from an installed package: no link
                defined[key] = (relative, line)
        return replace(self, conditions=conditions, defined=defined)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.unexpected or self.shapes or self.errors)


@dataclass(frozen=True, slots=True)
class RefLoad:
    """One reference as the child saw it: its keys and the dry runs (saved / migrated / ...)."""

    name: str
    prefix: str  # the wrapper prefix stripped from every key ("module.", "_orig_mod.")
    where: str | None  # the key the state dict was found under in a bigger checkpoint
    entries: Mapping[str, TensorMeta] | None  # None: the parent read them itself
    shared: tuple[tuple[str, ...], ...] | None  # keys that are one tensor; None: unknown
    runs: Mapping[str, LoadRun]
    used: Mapping[str, Mapping[int, tuple[str, ...]]]  # run -> migration index -> keys
    error: Mapping[str, Any] | None = None
    variant: str | None = None  # the head model's variant it was dry-run into (None: the one)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> RefLoad:
        entries = value.get("entries")
        shared = value.get("shared")
        return cls(
            name=value["name"],
            prefix=value.get("prefix", ""),
            where=value.get("where"),
            entries=None if entries is None else entries_from_json(entries),
            shared=None if shared is None else tuple(tuple(g) for g in shared),
            runs={k: LoadRun.from_json(v) for k, v in value.get("runs", {}).items()},
            used={
                run: {int(i): tuple(keys) for i, keys in by_rule.items()}
                for run, by_rule in value.get("used", {}).items()
            },
            error=value.get("error"),
            variant=value.get("variant"),
        )

    def relative_to(self, root: Path) -> RefLoad:
        return replace(self, runs={k: run.relative_to(root) for k, run in self.runs.items()})


@dataclass(frozen=True, slots=True)
class EquivalenceResult:
    compared: bool
    equal: bool = False
    skipped: str | None = None  # why it did not run: "too-large", "not-built"...
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> EquivalenceResult:
        return cls(
            compared=bool(value.get("compared")),
            equal=bool(value.get("equal")),
            skipped=value.get("skipped"),
            details=dict(value),
        )
