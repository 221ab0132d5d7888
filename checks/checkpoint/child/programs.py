"""The checkpoint check's programs, one child per revision: ``base`` and ``head``.

``base``: each variant of the base model built on the meta device, described (the from_base
reference of that variant), and, for the equivalence test, built again with seeded real
weights, run, and saved, every variant's record in one file. ``head``: each variant of the
head model built on the meta device; each reference (keys the parent read, or a torch.save
file loaded here) dry-run into its variant (a base variant's state dict into its namesake, a
file into the first variant) as saved and under each set of migrations; and each variant's
saved base weights loaded into its namesake, a real head model, and compared. Variants pair by
name, a factory's one model with `default` (``policy.variant_key``); one at a revision only is the
parent's to note. The factory runs once per build: every variant comes from that one call.

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

from ...model.child import Problem, finish, prepare, variants
from ...model.child.classes import class_sources
from ...model.child.serve import exchange_file
from ...sandbox.child import Target
from .describe import describe, tensor_json
from .dry_run import dry_run
from .equivalence import compare, record
from .keys import migrate, strip_prefix, wrapper_prefix
from .load import NotAStateDict, from_entries, load_file, torch_version
from .meta import build_ahead, build_meta
from .policy import MIN_TORCH, variant_key
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
        models, meta_error = build_meta(request, target, device)
        found = [
            {"variant": name, "model": {**describe(model), "meta": meta_error is None,
                                        "meta_error": meta_error}}
            for name, model in models
        ]  # fmt: skip
        del models
        equivalence = settings.get("equivalence")
        if equivalence:
            _save(request, target, device, found, equivalence)
        return {"variants": found}
    except Problem as problem:
        return problem.as_json()


def _save(
    request: dict[str, Any],
    target: Target,
    device: Any,
    found: list[dict[str, Any]],
    equivalence: dict[str, Any],
) -> None:
    """Each variant built with real weights (the factory called once), run, and recorded in
    one file of the exchange, which the parent takes out; a variant above `max_parameters`
    is skipped, and says so."""
    small = set()
    for facts in found:
        parameters = facts["model"]["parameters"]
        if parameters > equivalence["max_parameters"]:
            facts["equivalence"] = {"skipped": "too-large", "parameters": parameters}
        else:
            small.add(variant_key(facts["variant"]))
    if not small:
        return
    records = []
    by_key = {variant_key(facts["variant"]): facts for facts in found}
    made = variants(request, target)
    while made:  # popped, so each variant's model is freed once it is recorded
        name, one = made.pop(0)
        if variant_key(name) not in small:
            continue
        loaded = finish(request, one, device=device, variant=name)
        del one
        records.append(record(loaded.model, loaded.args, loaded.kwargs, variant=name))
        outputs = len(records[-1]["outputs"])
        by_key[variant_key(name)]["equivalence"] = {"saved": True, "outputs": outputs}
        del loaded
    torch.save(records, exchange_file(request, equivalence["file"]))


def head(request: dict[str, Any], target: Target) -> Any:
    settings = request["kwargs"]
    try:
        device = prepare(request)
        models, meta_error = build_meta(request, target, device)
        found, by_key = [], {}
        for name, model in models:
            info = describe(model)
            info.update(meta=meta_error is None, meta_error=meta_error, shims=shims(model))
            info["classes"] = class_sources(model, str(request["root"]))
            found.append({"variant": name, "model": info})
            by_key[variant_key(name)] = (name, model, info)
        first = variant_key(models[0][0])
        references = []
        for ref in settings.get("references", []):
            # A base variant's state dict goes into its namesake; a file into the first.
            wanted = variant_key(ref["variant"]) if "variant" in ref else first
            if wanted not in by_key:
                references.append({"name": ref["name"], "variant": ref["variant"],
                                   "unpaired": True})  # fmt: skip
                continue
            name, model, info = by_key[wanted]
            references.append({**_reference(model, info, ref), "variant": name})
        del models, by_key
        result: dict[str, Any] = {
            "variants": found,
            "references": references,
            "torch": torch.__version__,
        }
        equivalence = settings.get("equivalence")
        if equivalence:
            result["equivalence"] = _compared(request, target, device, equivalence)
        return result
    except Problem as problem:
        return problem.as_json()


def _compared(
    request: dict[str, Any], target: Target, device: Any, equivalence: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each head variant with a base record of its name, built with real weights (the factory
    called once), base's weights loaded and its outputs compared: after ``migrations``, or,
    where ``variants`` maps a variant's name to its own migrations, only those variants."""
    saved = torch.load(equivalence["path"], weights_only=True, map_location="cpu")
    records = {variant_key(item["variant"]): item for item in saved}
    maps = equivalence.get("variants")
    compared = []
    made = variants(request, target)
    while made:  # popped, so each variant's model is freed once it is compared
        name, one = made.pop(0)
        key = variant_key(name)
        if key not in records or (maps is not None and key not in maps):
            continue
        rules = equivalence["migrations"] if maps is None else maps[key]
        loaded = finish(request, one, device=device, variant=name)
        del one
        outcome = compare(
            loaded.model,
            records[key],
            migrations=[tuple(rule) for rule in rules],
            atol=equivalence["atol"],
            rtol=equivalence["rtol"],
            device=device,
        )
        compared.append({"variant": name, **outcome})
        del loaded
    return compared


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
