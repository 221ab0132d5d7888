"""One sandboxed child per revision for every model check of a gate: a model session.

The pipeline opens one :class:`ModelSessions` per gate and hands it to each check in
``CheckContext.models``; a check run on its own (tests, a bench) gets a private one from
:func:`model_sessions`. The first model check that runs code at a revision starts that
revision's child (``served``: one interpreter start, one ``import torch``); later requests, from
the same check or the next, go to the same child, each with its own deadline and result. A
check calls ``start`` first, which starts both revisions' children without a request, then asks
base, then head (``checks.model.turns`` says why). The session also owns the revisions'
checkouts (each child's tree, the other one readable, never written: a child under bubblewrap
works in its own copy) and, for each revision, an inbox only the parent writes, shown to that
revision's children read-only: ``hand_over`` copies a file one revision's child left in its
exchange (the base run's weights) there, for the other's. Base and head children share no
folder they can write, and no pipe; each writes only to its own /tmp, HOME and tree, under its
disk cap (``checks.model.served``).

Once the checks are done, ``again`` asks each revision's child that answered the gate's first
model request one more question (the model plan, ``checks.model.plan``), and never starts one.

With a result cache (``checks.cache``), a request asked with ``cache=True`` is first looked up
by its key (the request, the check's settings, torch's version, gradgate's, and the content of
the files a run with that key imported, read from git, no checkout needed); a hit is answered
without a child, recorded in ``ctx.cached``, and a miss stores what the child answers with the
files it had imported. A check that knows its requests up front starts only the children of
the revisions that miss (``start(only=...)``). ``again`` reads the plan's facts from the cache
too, and starts a child for them only where the revision's request was a hit.

Checks whose settings run the model differently (another interpreter, device, entrypoint,
memory or disk cap, network, environment) get a child of their own. A request that must read a
file outside what the child sees starts a new child that sees it too.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from gradgate.checks.base import UserCodeSettings
from gradgate.checks.cache.results import CachedSide, Hit, ResultCache, key_of
from gradgate.checks.cache.version import own_version, torch_version
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import SandboxError
from gradgate.checks.model.beside import config_folder
from gradgate.checks.model.children import Asked, ChildKey, Running, fresh_file, inside
from gradgate.checks.model.portable import marked, placed, portable
from gradgate.checks.model.problems import describe
from gradgate.checks.model.run import checked_value, resolve_entrypoint, worded_crash
from gradgate.checks.model.served import LIFETIME_S, SERVE, ServedChild
from gradgate.checks.model.spec import ModelSpec
from gradgate.checks.sandbox.for_check import run_user_code
from gradgate.checks.sandbox.isolation import Isolation
from gradgate.checks.sandbox.limits import SandboxLimits
from gradgate.checks.sandbox.outcome import parse_target

REVISIONS = ("base", "head")
# Other kwargs a request's value answers too, with what to drop from it: given the files the
# run imported, [(kwargs, drop), ...].
Also = Callable[[Sequence[str]], Sequence[tuple[Mapping[str, Any], Callable[[Any], Any]]]]
# What a child imports when it starts, by the kind of request it is started for: a model
# check's programs all import torch; a data transform may not need it.
_IMPORTS: Mapping[str, tuple[str, ...]] = {"model": ("torch",)}


class ModelSessions:
    """The children and checkouts of one gate; ``close`` (or the ``with`` block) ends them."""

    def __init__(self, cache: ResultCache | None = None) -> None:
        self.cache = cache
        self._looked: dict[str, Hit | None] = {}  # (revision, material) -> what the cache held
        self._keys: dict[str, str] = {}  # (revision, material) -> its entry's key, hit or stored
        self._listings: dict[str, list[str]] = {}  # sha -> its Python files
        self._from_cache: set[str] = set()  # revisions whose first request was a hit
        self.plan_cached: dict[str, str] = {}  # revision -> commit, for the plan's facts
        self._lock = threading.Lock()
        self._stack = contextlib.ExitStack()
        self._roots: dict[str, Path] = {}
        self._children: dict[ChildKey, Running] = {}
        self._folder: Path | None = None
        self._inboxes: dict[str, Path] = {}
        # Each revision's first model request, as asked: where ``again`` sends its request.
        self._first: dict[str, _Request] = {}
        self._children_asked: set[str] = set()  # revisions a child has answered a request of
        self.started = 0  # children started so far (tests and the benchmark read it)

    def __enter__(self) -> ModelSessions:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def root(self, ctx: CheckContext, revision: str) -> Path:
        """The checkout of ``revision`` ("base" or "head"), made once per gate."""
        sha = ctx.base_sha if revision == "base" else ctx.head_sha
        with self._lock:
            if sha not in self._roots:
                self._roots[sha] = self._stack.enter_context(ctx.source.checkout(sha))
            return self._roots[sha]

    def _inbox(self, sha: str) -> Path:
        """The folder where the parent leaves files for the children at ``sha``: in a folder of
        the parent's own, shown to those children read-only (under the session's lock)."""
        if self._folder is None:
            made = tempfile.TemporaryDirectory(
                prefix="gradgate-models-", ignore_cleanup_errors=True
            )
            self._folder = Path(self._stack.enter_context(made))
        if sha not in self._inboxes:
            self._inboxes[sha] = Path(tempfile.mkdtemp(dir=self._folder, prefix="inbox-"))
        return self._inboxes[sha]

    def hand_over(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        spec: ModelSpec,
        name: str,
        timeout_s: float,
        device: str = "cpu",
        readable: Sequence[Path] = (),
        source: str = "base",
        to: str = "head",
    ) -> Path:
        """Copy the file ``name`` that ``source``'s child (the one :meth:`run` with these
        arguments asks) left in its exchange into ``to``'s inbox, once that child has answered;
        its path, which ``to``'s children read. SandboxError of ``source`` when its child has no
        such regular file, or sends more than its disk cap; of ``to`` when what lies in its
        inbox cannot be replaced (process-level isolation only: there a child can write it)."""
        if not name or name in (".", "..") or "/" in name:
            raise ValueError(f"not a file name: {name!r}")
        asked = self._ready(ctx, settings, entrypoint=spec.entrypoint, revision=source,
                            key="model", device=device, readable=readable)  # fmt: skip
        with self._lock:
            inbox = self._inbox(ctx.base_sha if to == "base" else ctx.head_sha)
        into = fresh_file(inbox, name, revision=to)
        try:
            asked.running.child.take(name, into, target=asked.parsed, timeout_s=timeout_s)
        except SandboxError as exc:
            raise worded_crash(exc, root=asked.root, python=ctx.python or sys.executable,
                               config_dir=asked.config_dir) from None  # fmt: skip
        finally:
            os.close(into)
        return inbox / name

    def run(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        spec: ModelSpec,
        revision: str,
        program: str,
        timeout_s: float,
        kwargs: Mapping[str, Any] | None = None,
        device: str = "cpu",
        seed: int | None = 0,
        readable: Sequence[Path] = (),
        cache: bool = False,
        also: Also | None = None,
        keyed: Mapping[str, Any] | None = None,
        fresh: bool = False,
    ) -> Any:
        """``program``'s JSON value at ``revision``, as ``run_model_program`` gives it (the same
        errors, worded the same), from the revision's shared child; ``timeout_s`` is this
        request's own deadline. ``readable``: files and folders outside both trees it reads.
        ``cache``: the value may come from (and goes to) the result cache; ``also``: other
        kwargs whose value is this one's less what a function drops (given the files the run
        imported), stored with it;
        ``keyed``: what keys the request in place of its kwargs (kwargs that name a file handed
        over, keyed by what decided that file instead); ``fresh``: ask the child even when the
        cache holds the value (it must leave a file to hand over), and store what it says."""
        with self._lock:
            first = _Request(ctx, settings, spec, device, tuple(readable))
            self._first.setdefault(revision, first)
        return self.run_entry(
            ctx, settings, entrypoint=spec.entrypoint, key="model", request=spec.as_request(),
            describe_problem=lambda problem, where: describe(problem, where=where),
            revision=revision, program=program, timeout_s=timeout_s, kwargs=kwargs,
            device=device, seed=seed, readable=readable, cache=cache, also=also,
            keyed=keyed, fresh=fresh,
        )  # fmt: skip

    def lookup(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        spec: ModelSpec,
        revision: str,
        program: str,
        kwargs: Mapping[str, Any] | None = None,
        device: str = "cpu",
        seed: int | None = 0,
    ) -> Hit | None:
        """What the cache holds for this model request at ``revision`` (None: a miss, or no
        cache); asks the store once per gate."""
        material = self._material(ctx, settings, entrypoint=spec.entrypoint, key="model",
                                  request=spec.as_request(), revision=revision, program=program,
                                  kwargs=kwargs, device=device, seed=seed)  # fmt: skip
        return None if material is None else self._lookup(ctx, revision, material)

    def lookup_entry(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        entrypoint: str | None,
        key: str,
        request: Mapping[str, Any],
        revision: str,
        program: str,
        kwargs: Mapping[str, Any] | None = None,
        device: str = "cpu",
        seed: int | None = 0,
        whole_tree: bool = False,
    ) -> Hit | None:
        """What :meth:`lookup` says, for a :meth:`run_entry` request."""
        material = self._material(ctx, settings, entrypoint=entrypoint, key=key, request=request,
                                  revision=revision, program=program, kwargs=kwargs,
                                  device=device, seed=seed, whole_tree=whole_tree)  # fmt: skip
        return None if material is None else self._lookup(ctx, revision, material)

    def key(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        spec: ModelSpec,
        revision: str,
        program: str,
        kwargs: Mapping[str, Any] | None = None,
        device: str = "cpu",
        seed: int | None = 0,
    ) -> str | None:
        """The key of this model request's cache entry at ``revision``: the one the cache
        holds, or the one this gate's run stored; None on a miss, or without a cache. A request
        whose value depends on this one's (a file its child handed over) is keyed by it."""
        material = self._material(ctx, settings, entrypoint=spec.entrypoint, key="model",
                                  request=spec.as_request(), revision=revision, program=program,
                                  kwargs=kwargs, device=device, seed=seed)  # fmt: skip
        if material is None:
            return None
        memo = self._memo(ctx, revision, material)
        with self._lock:
            if memo in self._keys:
                return self._keys[memo]
        hit = self._lookup(ctx, revision, material)
        return None if hit is None else hit.key

    def _material(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        entrypoint: str | None,
        key: str,
        request: Mapping[str, Any],
        revision: str,
        program: str,
        kwargs: Mapping[str, Any] | None,
        device: str,
        seed: int | None,
        whole_tree: bool = False,
    ) -> dict[str, Any] | None:
        """Everything that decides a request's value and is known before a child runs; None
        when this request is not cached (no cache, a config given with --config, whose folder
        git does not hold, or an interpreter whose torch cannot be named). ``whole_tree``: the
        revision's whole tree decides it (its program may read any file), not only the files
        its run imported."""
        if self.cache is None or ctx.config_dir is not None:
            return None
        torch = torch_version(ctx.python)
        if torch is None:
            return None
        sha = ctx.base_sha if revision == "base" else ctx.head_sha
        with self._lock:
            if sha not in self._listings:
                listed = ctx.source.list_files(sha)
                self._listings[sha] = sorted(p for p in listed if p.endswith(".py"))
            listing = self._listings[sha]
        return {
            "program": program, "kwargs": dict(kwargs or {}), "entrypoint": entrypoint,
            "request": {key: dict(request)}, "seed": seed, "device": device,
            "settings": settings.model_dump(mode="json"),
            "check": ctx.settings.model_dump(mode="json"), "sandbox": ctx.sandbox,
            "python": ctx.python, "torch": torch, "gradgate": own_version(),
            "python_files": listing,
            **({"tree": ctx.source.tree(sha)} if whole_tree else {}),
        }  # fmt: skip

    def _reader(self, ctx: CheckContext, revision: str) -> Callable[[str], bytes | None]:
        sha = ctx.base_sha if revision == "base" else ctx.head_sha
        return lambda path: ctx.source.read(sha, path)

    @staticmethod
    def _memo(ctx: CheckContext, revision: str, material: Mapping[str, Any]) -> str:
        return key_of({"revision": revision, "sha": ctx.base_sha if revision == "base"
                       else ctx.head_sha, "material": material})  # fmt: skip

    def _lookup(self, ctx: CheckContext, revision: str, material: Mapping[str, Any]) -> Hit | None:
        assert self.cache is not None
        memo = self._memo(ctx, revision, material)
        with self._lock:
            if memo in self._looked:
                return self._looked[memo]
        hit = self.cache.lookup(revision, material, self._reader(ctx, revision))
        with self._lock:
            self._looked[memo] = hit
            if hit is not None:
                self._keys.setdefault(memo, hit.key)
        return hit

    def _save(
        self,
        ctx: CheckContext,
        revision: str,
        material: Mapping[str, Any],
        files: Sequence[str],
        value: Any,
    ) -> None:
        assert self.cache is not None
        sha = ctx.base_sha if revision == "base" else ctx.head_sha
        stored = self.cache.save(material, self._reader(ctx, revision), files,
                                 portable(value, self._trees(ctx)), commit=sha)  # fmt: skip
        if stored is not None:
            with self._lock:
                self._keys[self._memo(ctx, revision, material)] = stored

    def _trees(self, ctx: CheckContext) -> dict[str, Path]:
        """Each revision's checkout, where a child's answer may name files: a value is stored
        with those folders' names replaced by a mark, put back as this gate's when read."""
        return {name: self.root(ctx, name) for name in REVISIONS}

    def again(self, revision: str, *, program: str, timeout_s: float) -> Any | None:
        """``program``'s value at ``revision`` from the child that answered the gate's first
        model request there, asked as that request was (or from the result cache); None when
        no model request went there or its child is gone (a check's request ran past its
        deadline): this starts a child only where that first request was a cache hit. Errors
        as :meth:`run` raises them."""
        with self._lock:
            first = self._first.get(revision)
            key = (
                None
                if first is None
                else _child_key(
                    first.ctx, first.settings, first.spec.entrypoint, first.device, revision
                )
            )
            running = None if key is None else self._children.get(key)
            hit_first = revision in self._from_cache
        if first is None:
            return None
        ctx = replace(first.ctx, isolations=[], cached=[])
        if hit_first or running is None or not running.child.alive:
            hit = None if first.readable else self.lookup(
                ctx, first.settings, spec=first.spec, revision=revision, program=program,
                device=first.device,
            )  # fmt: skip
            if hit is not None:
                self.plan_cached[revision] = hit.commit
                return checked_value(hit.value, target=first.spec.entrypoint, revision=revision)
            if not hit_first:
                return None  # its child is gone, and none is started for the plan
        value = self.run(
            ctx, first.settings, spec=first.spec, revision=revision, program=program,
            timeout_s=timeout_s, device=first.device, readable=first.readable,
            cache=not first.readable,
        )  # fmt: skip
        for side in ctx.cached:
            self.plan_cached[revision] = side.commit
        return value

    def run_entry(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        entrypoint: str | None,
        key: str,
        request: Mapping[str, Any],
        describe_problem: Callable[[Mapping[str, Any], str], str],
        revision: str,
        program: str,
        timeout_s: float,
        kwargs: Mapping[str, Any] | None = None,
        device: str = "cpu",
        seed: int | None = 0,
        readable: Sequence[Path] = (),
        cache: bool = False,
        also: Also | None = None,
        keyed: Mapping[str, Any] | None = None,
        fresh: bool = False,
        whole_tree: bool = False,
    ) -> Any:
        """What :meth:`run` does, for any factory named in a config block (``run_entry_program``:
        the data check's transform too), in the same child as the model checks; with
        ``whole_tree``, its cache key holds the revision's whole tree (``_material``)."""
        material = None
        if cache and not readable:
            material = self._material(ctx, settings, entrypoint=entrypoint, key=key,
                                      request=request, revision=revision, program=program,
                                      kwargs=kwargs if keyed is None else keyed, device=device,
                                      seed=seed, whole_tree=whole_tree)  # fmt: skip
        hit = None if material is None or fresh else self._lookup(ctx, revision, material)
        if hit is not None:
            with self._lock:
                if revision not in self._children_asked:
                    self._from_cache.add(revision)
            ctx.cached.append(CachedSide(revision, hit.commit, program))
            value = hit.value
            if marked(value):  # it names files in the trees: this gate's checkouts
                value = placed(value, self._trees(ctx))
            return checked_value(value, target=entrypoint, revision=revision,
                                 describe_problem=describe_problem)  # fmt: skip
        asked = self._ready(ctx, settings, entrypoint=entrypoint, revision=revision, key=key,
                            device=device, readable=readable)  # fmt: skip
        with self._lock:
            self._children_asked.add(revision)
            self._from_cache.discard(revision)
        running, root, config_dir = asked.running, asked.root, asked.config_dir
        extra_path = [] if config_dir is None else [str(config_dir)]
        payload = {**(kwargs or {}), key: {**request, "extra_path": extra_path}}
        try:
            value, files = running.child.ask_files(
                program, payload, target=asked.parsed, seed=seed, timeout_s=timeout_s,
                target_path=None if asked.path is None else str(asked.path),
            )  # fmt: skip
        except SandboxError as exc:
            raise worded_crash(exc, root=root, python=ctx.python or sys.executable,
                               config_dir=config_dir) from None  # fmt: skip
        finally:
            if running.child.isolation is not None:
                ctx.isolations.append(running.child.isolation)
        if material is not None and files is not None:
            self._save(ctx, revision, material, files, value)
            for more, strip in also(files) if also is not None else ():
                other = self._material(ctx, settings, entrypoint=entrypoint, key=key,
                                       request=request, revision=revision, program=program,
                                       kwargs=more, device=device, seed=seed,
                                       whole_tree=whole_tree)  # fmt: skip
                if other is not None:
                    self._save(ctx, revision, other, files, strip(value))
        return checked_value(
            value, target=asked.target, revision=revision, describe_problem=describe_problem
        )

    def start(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        entrypoint: str | None,
        key: str = "model",
        device: str = "cpu",
        readable: Sequence[Path] = (),
        only: Sequence[str] = REVISIONS,
    ) -> None:
        """Start base's and head's children now (those of ``only``), without a request, each
        importing what ``key``'s programs need (torch for a model): the interpreter starts and
        imports, one thread each, overlap, and each revision's first request (same arguments)
        finds its child ready. What goes wrong here is left to that request to say."""
        for revision in only:
            with contextlib.suppress(Exception):
                self._ready(ctx, settings, entrypoint=entrypoint, revision=revision, key=key,
                            device=device, readable=readable)  # fmt: skip

    def _ready(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        *,
        entrypoint: str | None,
        revision: str,
        key: str,
        device: str,
        readable: Sequence[Path],
    ) -> Asked:
        """The running child that sees what a request at ``revision`` reads, and its target."""
        roots = {name: self.root(ctx, name) for name in REVISIONS}
        root = roots[revision].resolve()
        child_key = _child_key(ctx, settings, entrypoint, device, revision)
        others = {r.resolve() for n, r in roots.items() if n != revision}
        wanted = frozenset(Path(p).resolve() for p in readable) | others
        child = functools.partial(self._child, ctx, settings, child_key, root=root,
                                  revision=revision, entrypoint=entrypoint,
                                  imports=_IMPORTS.get(key, ()))  # fmt: skip
        with self._lock:
            running = child(wanted=wanted)
            target = resolve_entrypoint(entrypoint, root=root, config_dir=running.config_dir)
            parsed = parse_target(target, revision=revision)
            path = None if parsed.path is None else (root / parsed.path).resolve()
            if path is not None and not path.is_relative_to(root):
                # A factory file outside the tree: the child must see its folder.
                wanted |= {path.parent}
                running = child(wanted=wanted)
        return Asked(running, root, running.config_dir, target, parsed, path)

    def _child(
        self,
        ctx: CheckContext,
        settings: UserCodeSettings,
        key: ChildKey,
        *,
        root: Path,
        revision: str,
        entrypoint: str | None,
        wanted: frozenset[Path],
        imports: Sequence[str],
    ) -> Running:
        known = self._children.pop(key, None)
        if known is not None:
            if known.child.alive and all(inside(p, known.child.readable) for p in wanted):
                self._children[key] = known
                return known
            kept = known.child.readable - {known.config_dir}  # a staged folder goes with it
            wanted |= {p for p in kept if p.exists()}
            known.close()
        stack = contextlib.ExitStack()
        config_dir = stack.enter_context(config_folder(ctx.config_dir, entrypoint, root=root))
        # The first request's target goes in the start request (requests bring their own).
        target = resolve_entrypoint(entrypoint, root=root, config_dir=config_dir)
        inbox = self._inbox(key.sha)
        seen = list(dict.fromkeys([*wanted, inbox, *(() if config_dir is None else (config_dir,))]))
        isolations: list[Isolation] = []  # run_user_code records the child's isolation here
        quiet = replace(ctx, isolations=isolations)

        def start(pipes: Mapping[str, Any], fds: Sequence[int], stop: Callable[[], bool]) -> Any:
            return run_user_code(
                quiet, settings, target=target, root=root, revision=revision, program=SERVE,
                kwargs=pipes, timeout_s=LIFETIME_S, device=key.device, seed=0,
                readable=seen, stop=stop, fds=fds,
            )  # fmt: skip

        child = ServedChild(
            start,
            revision=revision,
            limits=SandboxLimits(memory_mb=settings.memory_mb, disk_mb=settings.disk_mb),
            python=ctx.python or sys.executable,
            readable=frozenset(seen),
            isolations=isolations,
            imports=imports,
        )
        self.started += 1
        running = Running(child, stack, config_dir)
        self._children[key] = running
        return running

    def close(self) -> None:
        with self._lock:
            children, self._children = list(self._children.values()), {}
        for running in children:
            running.close()
        self._stack.close()


class _Request(NamedTuple):
    """A model request's arguments, less the program: how to reach its child again."""

    ctx: CheckContext
    settings: UserCodeSettings
    spec: ModelSpec
    device: str
    readable: tuple[Path, ...]


def _child_key(
    ctx: CheckContext,
    settings: UserCodeSettings,
    entrypoint: str | None,
    device: str,
    revision: str,
) -> ChildKey:
    """The child a request at ``revision`` goes to: requests that agree on it share one."""
    return ChildKey(
        sha=ctx.base_sha if revision == "base" else ctx.head_sha,
        # With --config, the folder the child sees may be staged for one entrypoint only.
        entrypoint=None if ctx.config_dir is None else entrypoint,
        device=device,
        python=ctx.python,
        sandbox=ctx.sandbox,
        memory_mb=settings.memory_mb,
        disk_mb=settings.disk_mb,
        network=settings.network,
        env_allow=tuple(settings.env_allow),
    )


@contextlib.contextmanager
def model_sessions(ctx: CheckContext) -> Iterator[ModelSessions]:
    """The gate's sessions (``ctx.models``), or a private one ended when the block ends."""
    if ctx.models is not None:
        yield ctx.models
        return
    with ModelSessions() as sessions:
        yield sessions
