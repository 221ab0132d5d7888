"""One run of the check: the base child, the head child, the verification of suggested maps.

The I/O edge of the check. Requests to the revisions' children (one long-lived child per
revision, shared with the other model checks: ``checks.model.session``): ``base`` (only when
the base model is a reference or equivalence is on), ``head`` (always), and a second ``head``
only when renames were inferred, to dry-run the suggested map before suggesting it. Each
request covers every variant the factory returns (one factory call per build, in the same
child): one ``from_base`` reference per base variant, one equivalence result per variant.
Everything they return is judged and worded by pure modules.

Each request's answer is cached (``checks.cache``, docs/caching.md): base's as any model
request's; head's keyed by each reference file's content and by base's entry (what decided the
weights handed over), not by paths in this gate's checkouts. Base's weights are not cached:
where base's answer came from the cache and a head request did not, base's child runs again
to leave them.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradgate.checks.base import Finding, Severity, Suppression
from gradgate.checks.checkpoint import findings as words
from gradgate.checks.checkpoint.child.policy import variant_key
from gradgate.checks.checkpoint.failures import (
    built_for_real,
    equivalence_findings,
    equivalence_skipped,
    reference_error,
)
from gradgate.checks.checkpoint.judge import MIGRATED, SUGGESTED, Judgement, judge
from gradgate.checks.checkpoint.references import prepare
from gradgate.checks.checkpoint.results import EquivalenceResult, ModelInfo, RefLoad
from gradgate.checks.checkpoint.settings import CheckpointSettings
from gradgate.checks.checkpoint.tensors import Entries, entries_to_json
from gradgate.checks.checkpoint.variants import named, unpaired
from gradgate.checks.model.lines import read_diff
from gradgate.checks.model.spec import ModelSpec
from gradgate.checks.model.turns import Revisions

BASE_PROGRAM = "checkpoint.child.programs:base"
HEAD_PROGRAM = "checkpoint.child.programs:head"
WARM_PROGRAM = "checkpoint.child.programs:warm"
FROM_BASE = "(base model)"
BASE_WEIGHTS = "base-weights.pt"  # what base's child saves in its exchange for the head child
BASE_SEED = 0
HEAD_SEED = 1  # another seed than base's, so a tensor that did not load changes the outputs


@dataclass(frozen=True, slots=True)
class Outcome:
    findings: tuple[Finding, ...]
    unusable: bool  # a reference could not be used: the check could not decide for it
    metrics: Mapping[str, float] = field(default_factory=dict)
    suppressions: tuple[Suppression, ...] = ()  # what `allow:` and `migrations:` accepted


@dataclass(frozen=True, slots=True)
class _Checked:
    """A reference and how findings name it."""

    name: str
    label: str
    file: str | None
    entries: Entries | None  # known before the child ran (safetensors, from_base)


class _Children:
    """Asks the revisions' children (the gate's model session, through the revisions runner);
    together the requests get the check's `timeout_s`, not each."""

    def __init__(
        self,
        sides: Revisions,
        spec: ModelSpec,
        *,
        readable: Sequence[Path],
    ) -> None:
        self._sides, self._spec = sides, spec
        # Under bubblewrap a child sees only the two trees and what is shared with it, and
        # writes only to its own folders (the base weights go through the session).
        self._readable = readable
        self._contents: dict[str, str] = {}  # a reference file's path -> its content's digest

    def warm(self, revision: str) -> None:
        """Start ``revision``'s child on the imports a meta build needs, in the background; the
        next request there waits for it. Whatever goes wrong is left to that request to say."""

        def quietly() -> None:
            with contextlib.suppress(Exception):
                self.run(revision, {}, program=WARM_PROGRAM)

        threading.Thread(target=quietly, name="gradgate-checkpoint-warm", daemon=True).start()

    def hand_over(self, name: str) -> str:
        """The path at which head's child reads the file ``name`` base's child saved."""
        sides = self._sides
        path = sides.sessions.hand_over(
            sides.ctx,
            sides.settings,
            spec=self._spec,
            name=name,
            timeout_s=sides.left("base"),
            device=sides.device,
            readable=self._readable,
        )
        return str(path)

    def _request(self, revision: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {
            "spec": self._spec,
            "program": BASE_PROGRAM if revision == "base" else HEAD_PROGRAM,
            "kwargs": kwargs,
            "seed": BASE_SEED if revision == "base" else HEAD_SEED,
            "readable": self._readable,
        }

    def run(
        self,
        revision: str,
        kwargs: dict[str, Any],
        *,
        program: str | None = None,
        keyed: dict[str, Any] | None = None,
        fresh: bool = False,
    ) -> Any:
        """The program's value at ``revision``. Base's request and head's given ``keyed`` are
        cached (``checks.cache``); ``fresh``: base's child answers even on a hit."""
        request = self._request(revision, kwargs)
        if program is not None:
            request["program"] = program  # warming up: nothing to cache
        cache = program is None and (revision == "base" or keyed is not None)
        return self._sides.run(revision, **request, cache=cache, keyed=keyed, fresh=fresh)

    def key(self, kwargs: dict[str, Any]) -> str | None:
        """The key of base's cache entry for ``kwargs`` (held or stored by this gate)."""
        return self._sides.key("base", **self._request("base", kwargs))

    def cached(self, kwargs: dict[str, Any], keyed: dict[str, Any]) -> bool:
        """Whether the cache holds head's value for ``kwargs`` keyed by ``keyed``."""
        return self._sides.cached("head", **self._request("head", kwargs), keyed=keyed)

    def keyed(self, kwargs: Mapping[str, Any], base: str | None) -> dict[str, Any] | None:
        """What keys head's request ``kwargs``: each reference file by its content, not the
        path it lies at in this gate's checkout; the equivalence's base weights by base's
        entry (``base``: what decided them), not the path they were handed over to. None: not
        cached (a reference outside the trees, or base's request was asked but not cached)."""
        if self._readable or base == "" or self._sides.sessions.cache is None:
            return None
        references = []
        for item in kwargs["references"]:
            item = dict(item)
            if "path" in item:
                path = item.pop("path")
                if path not in self._contents:
                    self._contents[path] = _content(path)
                item["content"] = self._contents[path]
            references.append(item)
        equivalence = kwargs.get("equivalence")
        if equivalence is not None:
            equivalence = {k: v for k, v in equivalence.items() if k != "path"}
        return {"references": references, "equivalence": equivalence, "base": base}


def _content(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class _Weights:
    """Where head's child reads the weights base's child saved: handed over when base's child
    ran in this gate; when base's facts came from the cache, base's child runs again for them,
    only if a head request the cache does not hold needs them."""

    def __init__(self, children: _Children, kwargs: dict[str, Any], handed: str) -> None:
        self._children, self._kwargs, self._handed = children, kwargs, handed

    def path(self) -> str:
        if not self._handed:
            self._children.run("base", self._kwargs, fresh=True)
            self._handed = self._children.hand_over(BASE_WEIGHTS)
        return self._handed


class _Head:
    """Asks head's child, from the cache where it holds the answer (keyed by base's entry)."""

    def __init__(self, children: _Children, base: str | None, weights: _Weights | None) -> None:
        # base: base's entry key; "" when base was asked but is not cached; None: not asked.
        self._children, self._base, self._weights = children, base, weights

    def __call__(self, kwargs: dict[str, Any]) -> Any:
        keyed = self._children.keyed(kwargs, self._base)
        equivalence = kwargs.get("equivalence")
        held = keyed is not None and self._children.cached(kwargs, keyed)
        if equivalence is not None and self._weights is not None and not held:
            kwargs = {**kwargs, "equivalence": {**equivalence, "path": self._weights.path()}}
        return self._children.run("head", kwargs, keyed=keyed)


@dataclass(frozen=True, slots=True)
class _Judged:
    """A reference loaded into one head variant, and what the dry runs say."""

    index: int  # its place among the requests
    info: _Checked
    load: RefLoad
    judgement: Judgement
    entries: Entries
    variant: str  # the head variant it was loaded into, by ``variant_key``
    model: ModelInfo  # that variant's head model


def run_session(sides: Revisions, settings: CheckpointSettings, spec: ModelSpec) -> Outcome:
    ctx, base_root, head_root = sides.ctx, sides.root("base"), sides.root("head")
    changed = {path for change in ctx.changes for path in change.paths}
    ready, found, unusable = prepare(
        settings.references, base_root=base_root, head_root=head_root, changed=changed
    )
    findings = list(found)
    rules = settings.rules
    checked = [_Checked(r.name, r.label, r.file, r.read.entries) for _, r in ready]
    requests = [_with_runs(r.request(key=ref.key), rules) for ref, r in ready]
    # References live in either tree or, given as absolute paths, anywhere: each child may
    # read both trees and those files.
    outside = [r.read.path for _, r in ready if Path(r.name).is_absolute()]
    children = _Children(sides, spec, readable=outside)
    equivalence = settings.equivalence
    if not requests and not settings.checks_base and not equivalence.enabled:
        return Outcome(tuple(findings), unusable)  # nothing left that needs the model
    base = _Base()
    ask_head = _Head(children, None, None)
    if settings.checks_base or equivalence.enabled:
        base, ask_head = _ask_base(children, settings, checked, requests)
    head_kwargs: dict[str, Any] = {"references": requests}
    if base.saved:
        head_kwargs["equivalence"] = {
            "path": "",  # where base's weights are handed over, when head's child runs
            "migrations": rules,
            "atol": equivalence.atol,
            "rtol": equivalence.rtol,
        }
    value = ask_head(head_kwargs)
    heads = [
        (item["variant"], ModelInfo.from_json(item["model"]).relative_to(head_root))
        for item in value["variants"]
    ]
    head_models = {variant_key(name): model for name, model in heads}
    # Each variant's findings, by ``variant_key``, in the head's order (a base-only one: a note).
    said = {key: list(base.said.get(key, ())) for key in head_models}
    model = heads[0][1]
    if not model.meta:
        findings.append(built_for_real(model.meta_error))
    if base.models:
        findings += unpaired(base.names, [name for name, _ in heads])
    judged: list[_Judged] = []
    for index, (info, item) in enumerate(zip(checked, value["references"], strict=True)):
        if item.get("unpaired"):
            continue  # a base variant the head lacks: noted above
        load = RefLoad.from_json(item).relative_to(head_root)
        if load.error is not None:
            findings.append(reference_error(load.error, label=info.label, file=info.file))
            unusable = True
            continue
        key = variant_key(load.variant)
        entries = load.entries if load.entries is not None else _stripped(info.entries, load.prefix)
        base_keys = frozenset(base.models[key].entries) if key in base.models else None
        judgement = judge(
            entries,
            load.shared,
            head_models[key],
            load.runs,
            load.used,
            rules if MIGRATED in load.runs else [],
            base_keys=base_keys,
        )
        judged.append(_Judged(index, info, load, judgement, entries, key, head_models[key]))
    results = {
        variant_key(item["variant"]): EquivalenceResult.from_json(item)
        for item in value.get("equivalence") or ()
    }
    uncompared = {key for key, result in results.items() if not result.compared}
    verified, suggested = _verify(
        ask_head, judged, requests, rules,
        equivalence=head_kwargs.get("equivalence"), uncompared=uncompared,
    )  # fmt: skip
    # The outputs under the suggested map say more than "not compared".
    same = {key: result.equal for key, result in suggested.items() if result.compared}
    results.update((key, result) for key, result in suggested.items() if result.compared)
    severity = Severity.BLOCKING if settings.dtype_changes == "block" else Severity.WARNING
    diff = read_diff(ctx)
    suppressed: list[Suppression] = []
    for one in judged:
        found_here, accepted = words.findings_for(
            one.judgement,
            label=one.info.label,
            file=one.info.file,
            rules=rules,
            verified=verified.get(one.index),
            dtype_severity=severity,
            same_outputs=same.get(one.variant) if one.info.name == FROM_BASE else None,
            classes=one.model.classes,
            diff=diff,
            allow=settings.allow,
        )
        said[one.variant] += found_here
        suppressed.extend(accepted)
    breaks = any(f.severity is Severity.BLOCKING for f in findings)
    for key, result in results.items():
        quiet = breaks or any(f.severity is Severity.BLOCKING for f in said[key])
        said[key] += equivalence_findings(result, rules=rules, quiet=quiet)
    findings += named(said)
    metrics = {"references": float(len(checked)), "model_keys": float(len(model.entries))}
    return Outcome(tuple(findings), unusable, metrics, tuple(dict.fromkeys(suppressed)))


@dataclass(frozen=True, slots=True)
class _Base:
    """What the base child said: each variant's model (by ``variant_key``; none: base was not
    built), the variants' names in its order, notes per variant, and whether it saved weights
    for head's child."""

    models: Mapping[str, ModelInfo] = field(default_factory=dict)
    names: tuple[str | None, ...] = ()
    said: Mapping[str, Sequence[Finding]] = field(default_factory=dict)
    saved: bool = False


def _ask_base(
    children: _Children,
    settings: CheckpointSettings,
    checked: list[_Checked],
    requests: list[dict[str, Any]],
) -> tuple[_Base, _Head]:
    """Ask the base child for every variant's model (and, with equivalence on, its weights and
    outputs, handed over to head); with `from_base`, add each variant's state dict to the
    references (``checked`` and ``requests``), for its namesake at head. Base's answer may
    come from the cache; then head's requests are too, where it holds them, or its weights are
    asked for when one is not (``_Weights``)."""
    equivalence = settings.equivalence
    kwargs: dict[str, Any] = {}
    if equivalence.enabled:
        kwargs["equivalence"] = {"file": BASE_WEIGHTS, "max_parameters": equivalence.max_parameters}
    hit = children.key(kwargs) is not None
    if not hit:
        children.warm("head")  # while base runs, where there is a core for it
    value = children.run("base", kwargs)
    models: dict[str, ModelInfo] = {}
    said: dict[str, list[Finding]] = {}
    saved = False
    for item in value["variants"]:
        name, model = item["variant"], ModelInfo.from_json(item["model"])
        models[variant_key(name)] = model
        answer = item.get("equivalence") or {}
        saved |= bool(answer.get("saved"))
        if answer.get("skipped"):
            said.setdefault(variant_key(name), []).append(
                equivalence_skipped(answer.get("parameters"))
            )
        if settings.checks_base:
            checked.append(_Checked(FROM_BASE, "the base model's state dict", None, model.entries))
            requests.append(_with_runs({**_from_base(model), "variant": name}, settings.rules))
    names = tuple(item["variant"] for item in value["variants"])
    weights = None
    if saved:
        weights = _Weights(children, kwargs, "" if hit else children.hand_over(BASE_WEIGHTS))
    head = _Head(children, children.key(kwargs) or "", weights)
    return _Base(models, names, said, saved), head


def _with_runs(request: dict[str, Any], rules: Sequence[tuple[str, str | None]]) -> dict[str, Any]:
    if rules:
        request["runs"] = {MIGRATED: [list(rule) for rule in rules]}
    return request


def _from_base(model: ModelInfo) -> dict[str, Any]:
    return {
        "name": FROM_BASE,
        "entries": entries_to_json(model.entries),
        "versions": dict(model.versions),
        "shared": [list(group) for group in model.tied],
    }


def _stripped(entries: Entries | None, prefix: str) -> Entries:
    assert entries is not None, "the child returns entries for files it loaded itself"
    if not prefix:
        return entries
    return {key[len(prefix) :]: meta for key, meta in entries.items() if key.startswith(prefix)}


def _verify(
    ask_head: Callable[[dict[str, Any]], Any],
    judged: Sequence[_Judged],
    requests: Sequence[dict[str, Any]],
    rules: Sequence[tuple[str, str | None]],
    *,
    equivalence: Mapping[str, Any] | None,
    uncompared: Collection[str],
) -> tuple[dict[int, bool], dict[str, EquivalenceResult]]:
    """Dry-run each suggested map (declared migrations + inferred renames) in the head child:
    (reference index -> whether it then loads cleanly, and, for each variant in
    ``uncompared`` (its base weights did not load as saved), the outputs compared under the
    map suggested for its base state dict)."""
    again, indices = [], []
    maps: dict[str, list[list[str | None]]] = {}
    for one in judged:
        renames = one.judgement.inference.renames if one.judgement.inference else ()
        if renames:
            request = dict(requests[one.index])
            suggested = [*rules, *((r.pattern, r.replacement) for r in renames)]
            request["runs"] = {SUGGESTED: [list(rule) for rule in suggested]}
            again.append(request)
            indices.append(one.index)
            if one.info.name == FROM_BASE and one.variant in uncompared:
                maps[one.variant] = [list(rule) for rule in suggested]
    if not again:
        return {}, {}
    kwargs: dict[str, Any] = {"references": again}
    if equivalence is not None and maps:
        kwargs["equivalence"] = {**equivalence, "migrations": [], "variants": maps}
    value = ask_head(kwargs)
    loads = {}
    for index, item in zip(indices, value["references"], strict=True):
        run = RefLoad.from_json(item).runs.get(SUGGESTED)
        loads[index] = run is not None and run.clean
    outputs = {
        variant_key(item["variant"]): EquivalenceResult.from_json(item)
        for item in value.get("equivalence") or ()
    }
    return loads, outputs
