"""For `gradgate init`: guess a tiny model in the user's interpreter, then verify a factory.

``guess_model`` runs the child program ``model.child.guess:guess_factory`` on candidate classes
(module, class name), most likely first, and returns the first recipe that built and ran, with
the variants that switch on what its defaults leave off (dropout, feature flags, up to a budget);
``verify_factory`` builds a written factory the way the model checks will (the
``model.child:inspect_model`` program). Both run in the sandbox child, never importing torch or
the user's code in gradgate's process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradgate.checks.errors import SandboxError
from gradgate.checks.model.problems import describe
from gradgate.checks.sandbox.run import SandboxLimits, run_in_sandbox

_GUESS_TIMEOUT_S = 300.0
# Feature flags init gives a variant each (the dropout variant aside): each variant is one more
# model every model check builds and runs at both revisions.
FLAG_BUDGET = 6


@dataclass(frozen=True, slots=True)
class InputGuess:
    name: str
    kind: str  # "tokens" or "steps" (integers below ``high``), or "float"
    shape: tuple[int, ...]
    high: int | None = None


@dataclass(frozen=True, slots=True)
class Part:
    """One object the factory builds: a config, the module a wrapper takes, or the model."""

    var: str  # its name in the factory
    role: str  # "config", "module" or "model"
    module: str
    cls: str
    method: str | None  # built by ``cls.method()`` (a default config on the model class)
    style: str  # "call": ``cls(**values, **refs)``; "attrs"/"items": made, then values set
    values: tuple[tuple[str, Any], ...]
    refs: tuple[tuple[str, str], ...]  # (argument, an earlier part's var)


@dataclass(frozen=True, slots=True)
class Change:
    part: str  # the var of the part it changes
    name: str
    value: Any
    default: Any  # its value in the default variant


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    changes: tuple[Change, ...]


@dataclass(frozen=True, slots=True)
class Recipe:
    """A class that built with tiny sizes and ran on guessed inputs, and its variants."""

    parts: tuple[Part, ...]  # built in order; the last is the model
    inputs: tuple[InputGuess, ...]
    parameters: int
    variants: tuple[Variant, ...] = ()  # beside the default, each built and run once
    left_out: tuple[tuple[str, str], ...] = ()  # (feature flag, why it has no variant)
    budget: int = FLAG_BUDGET

    @property
    def model(self) -> Part:
        return self.parts[-1]


@dataclass(frozen=True, slots=True)
class Guess:
    recipe: Recipe | None
    tried: tuple[tuple[str, str], ...]  # (class, why it did not build or run)


def guess_model(
    root: Path,
    candidates: Sequence[tuple[str, str, int]],
    *,
    python: str | None,
    src_layout: bool = False,
    documented: Sequence[str] = (),
    flag_budget: int = FLAG_BUDGET,
) -> Guess:
    """The first of ``candidates`` (module, class, calls of it in the repository) that builds
    tiny and runs, tried in the user's interpreter, with a variant per feature flag up to
    ``flag_budget``; ``documented``: the class names the docs call. Raises SandboxError when
    the child itself fails (no torch there, a crash)."""
    value = run_in_sandbox(
        None,
        root=root,
        program="model.child.guess:guess_factory",
        kwargs={
            "candidates": [{"module": m, "cls": c, "uses": n} for m, c, n in candidates],
            "src_layout": src_layout,
            "documented": list(documented),
            "flag_budget": flag_budget,
        },
        limits=SandboxLimits(timeout_s=_GUESS_TIMEOUT_S),
        revision="head",
        python=python,
    )
    return parse_guess(value)


def parse_guess(value: Any) -> Guess:
    """The child's JSON as a Guess (see ``checks.model.child.guess`` for its shape)."""
    tried = tuple((str(a), str(b)) for a, b in value.get("tried", ()))
    if "parts" not in value:
        return Guess(None, tried)
    parts = tuple(
        Part(
            var=p["var"],
            role=p["role"],
            module=p["module"],
            cls=p["cls"],
            method=p.get("method"),
            style=p["style"],
            values=tuple(p["values"].items()),
            refs=tuple(p["refs"].items()),
        )
        for p in value["parts"]
    )
    recipe = Recipe(
        parts=parts,
        inputs=tuple(
            InputGuess(i["name"], i["kind"], tuple(i["shape"]), i.get("high"))
            for i in value["inputs"]
        ),
        parameters=int(value["parameters"]),
        variants=tuple(
            Variant(v["name"], tuple(Change(*change) for change in v["changes"]))
            for v in value.get("variants", ())
        ),
        left_out=tuple((str(a), str(b)) for a, b in value.get("left_out", ())),
        budget=int(value.get("budget", FLAG_BUDGET)),
    )
    return Guess(recipe, tried)


def verify_factory(root: Path, entrypoint: str, *, python: str | None) -> str | None:
    """Build the factory at ``entrypoint`` as a model check would and call the model once:
    None when it works, else what went wrong, in words."""
    try:
        value = run_in_sandbox(
            entrypoint,
            root=root,
            program="model.child:inspect_model",
            kwargs={"model": {"build": None, "inputs": None, "extra_path": []}},
            limits=SandboxLimits(timeout_s=_GUESS_TIMEOUT_S),
            revision="head",
            python=python,
        )
    except SandboxError as exc:
        return str(exc)
    if isinstance(value, dict) and isinstance(value.get("problem"), dict):
        return describe(value["problem"], where=entrypoint)
    return None
