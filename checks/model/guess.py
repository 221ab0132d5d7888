"""For `gradgate init`: guess a tiny model in the user's interpreter, then verify a factory.

``guess_model`` runs the child program ``model.child.guess:guess_factory`` on candidate classes
(module, class name), most likely first, and returns the first recipe that built and ran;
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


@dataclass(frozen=True, slots=True)
class InputGuess:
    name: str
    kind: str  # "tokens" (integer ids below ``high``) or "float"
    shape: tuple[int, ...]
    high: int | None = None


@dataclass(frozen=True, slots=True)
class Recipe:
    """A class that built with tiny sizes and ran on guessed inputs."""

    module: str
    cls: str
    kwargs: tuple[tuple[str, Any], ...]  # the constructor's own arguments
    config_module: str | None  # the config class it takes, built with ``config_kwargs``
    config_cls: str | None
    config_param: str | None
    config_kwargs: tuple[tuple[str, Any], ...]
    inputs: tuple[InputGuess, ...]
    parameters: int


@dataclass(frozen=True, slots=True)
class Guess:
    recipe: Recipe | None
    tried: tuple[tuple[str, str], ...]  # (class, why it did not build or run)


def guess_model(
    root: Path,
    candidates: Sequence[tuple[str, str]],
    *,
    python: str | None,
    src_layout: bool = False,
) -> Guess:
    """The first of ``candidates`` that builds tiny and runs, tried in the user's interpreter.
    Raises SandboxError when the child itself fails (no torch there, a crash)."""
    value = run_in_sandbox(
        None,
        root=root,
        program="model.child.guess:guess_factory",
        kwargs={
            "candidates": [{"module": m, "cls": c} for m, c in candidates],
            "src_layout": src_layout,
        },
        limits=SandboxLimits(timeout_s=_GUESS_TIMEOUT_S),
        revision="head",
        python=python,
    )
    return parse_guess(value)


def parse_guess(value: Any) -> Guess:
    """The child's JSON as a Guess (see ``checks.model.child.guess`` for its shape)."""
    tried = tuple((str(a), str(b)) for a, b in value.get("tried", ()))
    if "cls" not in value:
        return Guess(None, tried)
    config = value.get("config") or {}
    recipe = Recipe(
        module=value["module"],
        cls=value["cls"],
        kwargs=tuple(value["kwargs"].items()),
        config_module=config.get("module"),
        config_cls=config.get("cls"),
        config_param=config.get("param"),
        config_kwargs=tuple((config.get("kwargs") or {}).items()),
        inputs=tuple(
            InputGuess(i["name"], i["kind"], tuple(i["shape"]), i.get("high"))
            for i in value["inputs"]
        ),
        parameters=int(value["parameters"]),
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
