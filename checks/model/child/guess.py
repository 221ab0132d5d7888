"""A program for `gradgate init`: guess how to build a tiny model, its inputs and its variants.

Child-side (see ``checks.sandbox.child``). The parent names candidate classes (module, class
name, how many calls of it the repository's own code makes), most likely first, the class names
its docs call, and a budget of feature flags. For each candidate this plans the parts to build
(a config object it takes, the module a wrapper takes, then the class), builds them with tiny
sizes, calls the model on guessed inputs, and returns the first that works, with the variants
that exercise what its defaults switch off, as JSON for the parent to write down as a factory:

    {"parts": [{"var", "role": "config" | "module" | "model", "module", "cls", "method",
                "style": "call" | "attrs" | "items", "values": {name: literal},
                "refs": {param: var}}],
     "inputs": [{"name", "kind": "tokens" | "steps" | "float", "shape", "high"}],
     "parameters", "variants": [{"name", "changes": [[var, name, value, default]]}],
     "left_out": [[flag, why]], "budget", "tried": [[class, why it failed], ...]}

The parts are built in order, the model last: a ``call`` part is ``cls(**values, **refs)``, an
``attrs`` part is ``cls()`` (or ``cls.method()``, a default config on the model class, as
minGPT's ``GPT.get_default_config()``) with ``values`` then set as its attributes (an
``items`` part, a plain dict, as its items).

How to build a class and what a variant may change: ``plan``; the inputs: ``inputs``.

Variants: ``dropout`` sets every dropout argument that is 0 or None to 0.1; then one variant per
boolean feature flag (or ``Optional[bool]``/``Optional[int]`` one that is None), flipped, model
first, then its config, then the module it wraps, up to the budget. A variant that does not
build or run, or changes neither the output nor the weights, is left out, with why.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .build import prepare
from .inputs import guess_inputs, make_inputs, tensors
from .plan import build, import_class, is_wrapper, plans

_TRIES_PER_FLAG = 3  # flags tried, at most this many per flag of the budget


def guess_factory(request: dict[str, Any], target: Any) -> dict[str, Any]:
    """The program: the first candidate that builds and runs, else every reason it did not."""
    device = prepare(request)
    options = request["kwargs"]
    if options.get("src_layout"):
        sys.path.insert(1, os.path.join(request["root"], "src"))
    documented = set(options.get("documented") or ())
    pool = _ordered(options["candidates"])
    tried: list[list[str]] = []
    for candidate in pool:
        label = f"{candidate['module']}.{candidate['cls']}"
        try:
            recipe = _try(candidate, pool, documented, device)
        except Exception as exc:  # user code: any failure means "not this one"
            tried.append([label, f"{type(exc).__name__}: {exc}"[:300]])
            continue
        budget = int(options.get("flag_budget", 6))
        try:
            recipe.update(_variants(recipe, device, budget))
        except Exception as exc:  # the default that just ran fails the second time: no variant
            why = f"{type(exc).__name__}: {exc}"[:200]
            recipe.update(variants=[], left_out=[["every variant", why]], budget=budget)
        for part in recipe["parts"]:
            part.pop("features")
        recipe["tried"] = tried
        return recipe
    return {"tried": tried}


def _ordered(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidates, a wrapper that nothing in the repository builds first: it is the
    outermost model a user builds (around a decoder stack, a U-Net) and often holds the loss."""

    def wraps(candidate: dict[str, Any]) -> bool:
        try:
            return is_wrapper(import_class(candidate["module"], candidate["cls"]))
        except Exception:  # it is tried, and its failure said, in order below
            return False

    return sorted(candidates, key=lambda c: not (not c.get("uses") and wraps(c)))


def _try(
    candidate: dict[str, Any], pool: list[dict[str, Any]], documented: set[str], device: Any
) -> dict[str, Any]:
    cls = import_class(candidate["module"], candidate["cls"])
    failures = []
    for parts in plans(cls, var="model", role="model", pool=pool, documented=documented):
        try:
            model = build(parts, {}).to(device)
            inputs = guess_inputs(model, device)
        except Exception as exc:  # this way of building it failed: try the next
            inner = [p["cls"] for p in parts if p["role"] == "module"]
            around = f"around {inner[0]}: " if inner else ""
            failures.append(f"{around}{type(exc).__name__}: {exc}")
            continue
        return {
            "parts": parts,
            "inputs": inputs,
            "parameters": sum(p.numel() for p in model.parameters()),
        }
    raise TypeError("; ".join(failures)[:400])


def _variants(recipe: dict[str, Any], device: Any, budget: int) -> dict[str, Any]:
    """The variants that build, run, and change the output or the weights: ``dropout``, then
    one per feature flag up to ``budget``; the flags left out, and why."""
    parts = recipe["parts"]
    inputs = make_inputs(recipe["inputs"], device)
    order = {"model": 0, "config": 1, "module": 2}
    features = [
        (part["var"], f)
        for part in sorted(parts, key=lambda p: order[p["role"]])
        for f in part["features"]
    ]
    labels = _labels([(var, f["name"]) for var, f in features])
    default = _run(parts, {}, inputs, device)
    variants: list[dict[str, Any]] = []
    left_out: list[list[str]] = []

    def attempt(name: str, changes: dict[tuple[str, str], Any]) -> None:
        try:
            ran = _run(parts, changes, inputs, device)
        except Exception as exc:  # this setting does not build or run: not a variant
            left_out.append([name, f"{type(exc).__name__}: {exc}"[:200]])
            return
        if ran == default:
            left_out.append([name, "changed neither the output nor the weights"])
            return
        variants.append({
            "name": name,
            "changes": [[var, n, value, _was(features, var, n)] for (var, n), value in
                        changes.items()],
        })  # fmt: skip

    dropout = {(var, f["name"]): f["value"] for var, f in features if f["kind"] == "dropout"}
    if dropout:
        attempt("dropout", dropout)
    flags = [(var, f) for var, f in features if f["kind"] == "flag"]
    tries, before = 0, len(variants)
    for var, flag in flags:
        label = labels[(var, flag["name"])]
        if len(variants) - before >= budget or tries >= budget * _TRIES_PER_FLAG:
            left_out.append([label, f"over the budget of {budget} feature flags"])
            continue
        tries += 1
        attempt(label, {(var, flag["name"]): flag["value"]})
    return {"variants": variants, "left_out": left_out, "budget": budget}


def _was(features: list[tuple[str, dict[str, Any]]], var: str, name: str) -> Any:
    return next(f["default"] for v, f in features if v == var and f["name"] == name)


def _labels(keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A variant's name: the flag's, or `part.flag` where two parts have a flag of that name."""
    names = [name for _, name in keys]
    taken = ("default", "dropout", "model", "inputs", "loss")  # the factory's other keys
    return {
        (var, n): n if names.count(n) == 1 and n not in taken else f"{var}.{n}" for var, n in keys
    }


def _run(
    parts: list[dict[str, Any]], changes: dict[tuple[str, str], Any], inputs: Any, device: Any
) -> tuple[Any, ...]:
    """What one setting computes, from fixed seeds: its weights' names and shapes, and its
    output's floating-point tensors (compared whole, with ``==`` on the tuple)."""
    import torch

    torch.manual_seed(0)
    model = build(parts, changes).to(device)
    torch.manual_seed(1)
    with torch.no_grad():
        outputs = model(**inputs)
    shapes = tuple((k, tuple(v.shape)) for k, v in model.state_dict().items())
    return shapes, tuple(_Exact(t) for t in tensors(outputs))


class _Exact:
    """A tensor compared by value, exactly (for ``==`` on what two settings computed)."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def __eq__(self, other: object) -> bool:
        import torch

        return isinstance(other, _Exact) and (
            self.tensor.shape == other.tensor.shape and bool(torch.equal(self.tensor, other.tensor))
        )

    __hash__ = None  # type: ignore[assignment]
