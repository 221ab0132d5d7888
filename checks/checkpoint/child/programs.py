"""The checkpoint check's programs, one child per revision: ``base`` and ``head``.

``base``: the base model built on the meta device, described (the from_base reference), and,
for the equivalence test, built again with seeded real weights, run, and saved to a file.
``head``: the head model built on the meta device; each reference (keys the parent read, or a
torch.save file loaded here) dry-run into it as saved and under each set of migrations; and
the saved base weights loaded into a real head model and compared.

The model is built by the shared model code (``checks.model.child``) inside
``with torch.device("meta")`` (``meta.build_meta``): every parameter and buffer the factory
creates is a meta tensor, so a multi-GB model costs no memory, and ``head.weight = emb.weight``
stays one parameter (init-empty-weights helpers re-create parameters and untie them). A factory
that cannot run on meta (it reads weights, calls ``.item()``) is built for real instead, and
the parent notes it.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from typing import Any

import torch

from ...model.child import Problem, load, prepare
from ...model.child.classes import class_sources
from ...model.child.serve import exchange_file
from ...sandbox.child import Target
from .describe import describe, tensor_json
from .dry_run import dry_run
from .equivalence import compare, save
from .keys import migrate, strip_prefix, wrapper_prefix
from .load import NotAStateDict, from_entries, load_file, torch_version
from .meta import build_ahead, build_meta
from .policy import MIN_TORCH
from .source import conditional, defined_at, shims

_MAX_ERROR = 2000


def warm(request: dict[str, Any], target: Target) -> Any:
    """Build the head model on the meta device ahead of the head request (``meta.build_ahead``):
    the check asks the head child for it while the base child runs, so that what the build
    imports (torch's symbolic shapes with sympy, about half as long as ``import torch``, for
    factories with ``arange`` or maths on meta buffers) is not waited for afterwards."""
    with contextlib.suppress(Exception):
        prepare(request)
        build_ahead(request, target)
    return None


def base(request: dict[str, Any], target: Target) -> Any:
    settings = request["kwargs"]
    try:
        device = prepare(request)
        model, meta_error = build_meta(request, target, device)
        info = describe(model)
        result: dict[str, Any] = {
            "model": {**info, "meta": meta_error is None, "meta_error": meta_error}
        }
        equivalence = settings.get("equivalence")
        if equivalence:
            if info["parameters"] > equivalence["max_parameters"]:
                result["equivalence"] = {"skipped": "too-large", "parameters": info["parameters"]}
            else:
                loaded = load(request, target, device=device)
                saved = exchange_file(request, equivalence["file"])  # the parent takes it out
                result["equivalence"] = save(loaded.model, loaded.args, loaded.kwargs, saved)
        return result
    except Problem as problem:
        return problem.as_json()


def head(request: dict[str, Any], target: Target) -> Any:
    settings = request["kwargs"]
    try:
        device = prepare(request)
        model, meta_error = build_meta(request, target, device)
        info = describe(model)
        info.update(meta=meta_error is None, meta_error=meta_error, shims=shims(model))
        info["classes"] = class_sources(model, str(request["root"]))
        references = [_reference(model, info, ref) for ref in settings.get("references", [])]
        result: dict[str, Any] = {
            "model": info,
            "references": references,
            "torch": torch.__version__,
        }
        equivalence = settings.get("equivalence")
        if equivalence:
            loaded = load(request, target, device=device)
            result["equivalence"] = compare(
                loaded.model,
                equivalence["path"],
                migrations=[tuple(rule) for rule in equivalence["migrations"]],
                atol=equivalence["atol"],
                rtol=equivalence["rtol"],
                device=device,
            )
        return result
    except Problem as problem:
        return problem.as_json()


def _reference(model: Any, info: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": ref["name"]}
    try:
        if "path" in ref:
            if torch_version() < MIN_TORCH:
                out["error"] = {"kind": "old-torch", "torch": torch.__version__}
                return out
            state, out["where"] = load_file(ref["path"], zip_format=ref["zip"], key=ref["key"])
            shared = _shared(state) if ref["zip"] else None
        else:
            state = from_entries(ref["entries"], ref.get("versions"), ref.get("shared"))
            shared = [list(group) for group in ref.get("shared") or []]
    except NotAStateDict as exc:
        out["error"] = {"kind": "not-a-state-dict", "message": str(exc)}
        return out
    except Exception as exc:  # torch.load refused or failed: said as torch said it
        out["error"] = {"kind": "load", "message": f"{type(exc).__name__}: {exc}"[:_MAX_ERROR]}
        return out
    prefix = wrapper_prefix(list(state), list(info["entries"]))
    state = _strip(state, prefix)
    out["prefix"] = prefix
    out["shared"] = None if shared is None else [strip_prefix(g, prefix) for g in shared]
    if "path" in ref:
        out["entries"] = {key: tensor_json(value) for key, value in state.items()}
    runs = {"saved": dry_run(model, state)}
    used: dict[str, dict[int, list[str]]] = {}
    for name, rules in (ref.get("runs") or {}).items():
        migrated, used[name] = _migrated(state, [tuple(rule) for rule in rules])
        runs[name] = dry_run(model, migrated)
    for run in runs.values():
        run["conditions"] = conditional(model, run["missing"] + run["unexpected"])
        shaped = [key for key, _, _ in run["shapes"]] + [key for key, _, _ in run["dtypes"]]
        run["defined"] = defined_at(model, run["missing"] + shaped)
    out["runs"] = runs
    out["used"] = used
    return out


def _shared(state: Any) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for key, value in state.items():
        if isinstance(value, torch.Tensor):
            groups.setdefault(id(value), []).append(key)
    return [keys for keys in groups.values() if len(keys) > 1]


def _strip(state: Any, prefix: str) -> Any:
    if not prefix:
        return state
    result: Any = OrderedDict((key[len(prefix) :], value) for key, value in state.items())
    metadata = getattr(state, "_metadata", None)
    if metadata is not None:
        # Module prefixes: "module.encoder" -> "encoder", "module" -> "" (the real root); the
        # wrapper's own root entry goes.
        result._metadata = OrderedDict(
            ((name + ".")[len(prefix) : -1], info)
            for name, info in metadata.items()
            if (name + ".").startswith(prefix)
        )
    return result


def _migrated(state: Any, rules: list[Any]) -> tuple[Any, dict[int, list[str]]]:
    renamed, used, _dropped = migrate(list(state), rules)
    result: Any = OrderedDict((new, state[old]) for new, old in renamed.items())
    metadata = getattr(state, "_metadata", None)
    if metadata is not None:
        result._metadata = metadata
    by_rule: dict[int, list[str]] = {}
    for key, indices in used.items():
        for index in indices:
            by_rule.setdefault(index, []).append(key)
    return result, by_rule
