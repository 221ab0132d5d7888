"""What the child measured at one revision (``checks.gradient.child.probe``), as frozen values.

``parse_facts`` reads the program's JSON; anything malformed is a CheckError naming the
revision, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gradgate.checks.errors import CheckError
from gradgate.checks.model.coverage import FileCoverage, parse_coverage
from gradgate.checks.model.lines import ClassSource, parse_sources


@dataclass(frozen=True, slots=True)
class Param:
    names: tuple[str, ...]  # the first is the name it is known by; tied weights have more
    shape: tuple[int, ...]
    numel: int
    trainable: bool
    ran_with_grad: bool  # a module that owns it ran with grad enabled
    ran_without_grad: bool  # ... ran under no_grad / inference_mode
    reachable: bool  # the loss's autograd graph reaches it
    norms: tuple[float | None, ...]  # gradient norm per step; None: no gradient
    hooks: tuple[int, ...]  # `register_hook` hooks on it after each step

    @property
    def name(self) -> str:
        return self.names[0]


@dataclass(frozen=True, slots=True)
class Step:
    outputs: int  # floating tensors in the outputs
    outputs_with_grad: int
    loss_with_grad: bool


@dataclass(frozen=True, slots=True)
class Failure:
    """A step whose gradients were not finite, or whose backward raised; the op, if named."""

    step: int
    kind: str  # "non-finite" or "backward"
    op: str | None
    phase: str | None  # "forward": the value was born non-finite there; "backward"
    file: str | None
    line: int | None
    code: str | None
    message: str | None


@dataclass(frozen=True, slots=True)
class RevisionFacts:
    revision: str  # "base" or "head"
    torch: str
    device: str
    loss: str  # "user" or "projection"
    steps: tuple[Step, ...]
    params: tuple[Param, ...]
    buffers: frozenset[str]
    top_modules: tuple[str, ...]
    unregistered: tuple[tuple[str | None, tuple[int, ...]], ...]  # (name if found, shape)
    module_hooks: tuple[tuple[str, tuple[int, ...]], ...]  # modules whose hooks grew
    sources: Mapping[str, ClassSource]  # module name -> where its class is written
    failure: Failure | None
    variant: str | None = None  # the factory's name for this model; None: it returned one

    def by_name(self) -> dict[str, Param]:
        """Every name (aliases too) -> its parameter."""
        return {name: p for p in self.params for name in p.names}


@dataclass(frozen=True, slots=True)
class Probed:
    """One revision's probe: the facts of each model the factory returned (one, or each named
    variant in order) and, at head, which changed lines of code ran (``model.coverage``)."""

    variants: tuple[RevisionFacts, ...]
    coverage: Mapping[str, FileCoverage] = field(default_factory=dict)


def parse_probe(value: Any, *, revision: str) -> Probed:
    """The probe's JSON: one model's facts, or ``{"variants": [facts, ...]}``; plus coverage."""
    if isinstance(value, Mapping) and isinstance(value.get("variants"), list):
        facts = tuple(parse_facts(v, revision=revision) for v in value["variants"])
    else:
        facts = (parse_facts(value, revision=revision),)
    coverage = value.get("coverage") if isinstance(value, Mapping) else None
    return Probed(facts, parse_coverage(coverage, revision=revision))


def parse_facts(value: Any, *, revision: str) -> RevisionFacts:
    try:
        return _parse(value, revision)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CheckError(
            f"the gradient probe at {revision} returned malformed facts ({exc!r}); "
            "this is a bug in gradgate, please report it"
        ) from exc


def _parse(value: Mapping[str, Any], revision: str) -> RevisionFacts:
    failure = value["failure"]
    return RevisionFacts(
        revision=revision,
        torch=str(value["torch"]),
        device=str(value["device"]),
        loss=str(value["loss"]),
        steps=tuple(
            Step(int(s["outputs"]), int(s["outputs_with_grad"]), bool(s["loss_with_grad"]))
            for s in value["steps"]
        ),
        params=tuple(
            Param(
                names=tuple(str(n) for n in p["names"]),
                shape=tuple(int(d) for d in p["shape"]),
                numel=int(p["numel"]),
                trainable=bool(p["trainable"]),
                ran_with_grad=bool(p["ran_with_grad"]),
                ran_without_grad=bool(p["ran_without_grad"]),
                reachable=bool(p["reachable"]),
                norms=tuple(None if n is None else float(n) for n in p["norms"]),
                hooks=tuple(int(h) for h in p["hooks"]),
            )
            for p in value["parameters"]
        ),
        buffers=frozenset(str(b) for b in value["buffers"]),
        top_modules=tuple(str(m) for m in value["top_modules"]),
        unregistered=tuple(
            (None if u["name"] is None else str(u["name"]), tuple(int(d) for d in u["shape"]))
            for u in value["unregistered"]
        ),
        module_hooks=tuple(
            (str(m["name"]), tuple(int(c) for c in m["counts"])) for m in value["module_hooks"]
        ),
        sources=parse_sources(value["sources"]),
        failure=None
        if failure is None
        else Failure(
            step=int(failure["step"]),
            kind=str(failure["kind"]),
            op=_optional_str(failure.get("op")),
            phase=_optional_str(failure.get("phase")),
            file=_optional_str(failure.get("file")),
            line=None if failure.get("line") is None else int(failure["line"]),
            code=_optional_str(failure.get("code")),
            message=_optional_str(failure.get("message")),
        ),
        variant=_optional_str(value.get("variant")),
    )


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)
