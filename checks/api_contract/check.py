"""The `api-contract` check: did a calling convention change under its callers?

1. Signatures of the functions and methods in changed files of the zones that require the check
   (and of the names `watch` lists, wherever they live) are compared at base and head.
2. For the changes that matter to callers, one pass over the Python files at head finds the call
   sites they affect (`callsites`).
3. In every changed Python file, calls of asymmetric torch losses are compared with the names
   of their arguments and with the same calls at base (`losses`).
All static: user code is parsed, never imported.
"""

from __future__ import annotations

import ast
import contextlib
import gc
from collections.abc import Iterable, Iterator
from typing import ClassVar

from gradgate.checks.api_contract.allow import matches
from gradgate.checks.api_contract.calls import Call, module_calls
from gradgate.checks.api_contract.callsites import CallIndex
from gradgate.checks.api_contract.changes import Change, compare
from gradgate.checks.api_contract.findings import (
    broken,
    collapsed,
    for_change,
    for_loss,
    skipped,
    summary,
    unsearched,
)
from gradgate.checks.api_contract.losses import NEEDLES, loss_calls, swapped_by_name, swapped_from
from gradgate.checks.api_contract.names import module_name
from gradgate.checks.api_contract.settings import ApiContractSettings
from gradgate.checks.api_contract.signatures import headers, signatures
from gradgate.checks.api_contract.sources import Sources
from gradgate.checks.base import (
    Checking,
    CheckResult,
    CheckSettings,
    Finding,
    Suppression,
    finish,
)
from gradgate.checks.context import CheckContext
from gradgate.checks.diff import ChangeStatus, FileChange


class ApiContractCheck(Checking[ApiContractSettings]):
    name: ClassVar[str] = "api-contract"
    title: ClassVar[str] = "API contracts"
    settings_model: ClassVar[type[CheckSettings]] = ApiContractSettings

    def check(self, ctx: CheckContext, settings: ApiContractSettings) -> CheckResult:
        with _no_cycle_collection():
            return self._check(ctx, settings)

    def _check(self, ctx: CheckContext, settings: ApiContractSettings) -> CheckResult:
        sources = Sources(ctx.source, {"base": ctx.base_sha, "head": ctx.head_sha})
        python = {c.head_path: c for c in ctx.changes if _is_python(c) and c.head_path}
        in_zones = {p for paths in ctx.zones.values() for p in paths}
        changes, parsed = _changed_signatures(python.values(), sources, in_zones, settings.watch)
        callers = CallIndex([c for c in changes if c.callers_matter or c.defaults])
        findings: list[Finding] = []
        checked = 0
        head_files = ctx.source.list_files(ctx.head_sha) if callers.changes else list(python)
        bases = [_base_path(c) for c in python.values()]  # where a moved loss call came from
        for path in head_files:  # the one pass over the tree
            if not path.endswith(".py"):
                continue
            data = sources.read("head", path)
            if data is None:
                continue
            diffed = python.get(path)
            wants_calls = callers.mentions(data)
            wants_losses = settings.losses and diffed is not None and NEEDLES.search(data)
            if not (wants_calls or wants_losses):
                continue
            tree = parsed.pop(path, None) or sources.parse("head", path)
            if tree is None:
                continue
            calls = module_calls(tree, path)
            base_path = None if diffed is None else _base_path(diffed)
            if wants_calls:
                callers.collect(path, calls, sources, base_path, changed=diffed is not None)
            if wants_losses:
                said, n = judge_losses(path, calls, sources, base_path, bases)
                findings += said
                checked += n
        accepted: list[Suppression] = []  # what the base's `allow` rules turned into notes
        said_of_changes: list[Finding] = []
        for change in changes:
            said, allowed = for_change(change, callers.sites(change), allow=settings.allow)
            said_of_changes += said
            accepted += allowed
        findings += collapsed(said_of_changes)
        made_unparsable = _made_unparsable(python.values(), sources, in_zones)
        for path in made_unparsable:
            why = sources.unreadable["head", path]
            findings.append(broken(path, why, sources.error_lines.get(("head", path))))
        changed = {p for c in python.values() for p in c.paths}
        findings += _unreadable(sources.unreadable, changed, made_unparsable)
        return finish(
            self.name,
            findings,
            lambda ordered: summary(ordered, signatures=len(changes), calls=checked),
            metrics={"signatures_changed": len(changes), "loss_calls": checked},
            suppressions=accepted,
        )


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector while the check runs. Every parse allocates tens of
    thousands of syntax-tree nodes, and the collector rescans the live ones each time enough
    have piled up: on 1,000 files that doubled the check's time. Syntax trees hold no cycles
    (refcounting frees them), and the collector resumes, as it was, when the check ends."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _made_unparsable(
    python: Iterable[FileChange], sources: Sources, in_zones: set[str]
) -> list[str]:
    """Changed files, in the zones or read by this check, that parsed at base and not at head.

    The PR broke the module: every caller of it breaks, and nothing in it could be compared,
    so it blocks (issue 18: failing closed), never a note."""
    out = []
    for change in python:
        base_path, head_path = _base_path(change), change.head_path
        if base_path is None or head_path is None:
            continue
        looked = ("head", head_path) in sources.unreadable
        if not (looked or head_path in in_zones or base_path in in_zones):
            continue
        if not sources.parses("head", head_path) and sources.parses("base", base_path):
            out.append(head_path)
    return sorted(out)


def _unreadable(
    unreadable: dict[tuple[str, str], str], changed: set[str], broken: list[str]
) -> list[Finding]:
    """A note per changed file that could not be read (the first reason: at base, if it was
    already so); one for the rest of the repository. A file the PR broke has its own finding."""
    why_of: dict[str, str] = {}
    for (_, path), why in sorted(unreadable.items()):  # "base" sorts before "head"
        why_of.setdefault(path, why)
    out = [skipped(p, why) for p, why in sorted(why_of.items()) if p in changed and p not in broken]
    rest = sorted({path for _, path in unreadable} - changed)
    if rest:
        out.append(unsearched(rest))
    return out


def _is_python(change: FileChange) -> bool:
    return (
        change.path.endswith(".py")
        and not (change.binary or change.submodule or change.symlink)
        and change.status is not ChangeStatus.TYPE_CHANGED
    )


def _base_path(change: FileChange) -> str | None:
    # A copy leaves its source in place: at base, the copy is a new file.
    return None if change.status is ChangeStatus.COPIED else change.base_path


def _changed_signatures(
    python: Iterable[FileChange], sources: Sources, in_zones: set[str], watch: tuple[str, ...]
) -> tuple[list[Change], dict[str, ast.Module]]:
    """The changed signatures, and the head trees parsed to find them (for the pass to reuse)."""
    out = []
    parsed: dict[str, ast.Module] = {}
    for change in python:
        base_path, head_path = _base_path(change), change.head_path
        if base_path is None or head_path is None:
            continue
        if not (base_path in in_zones or head_path in in_zones) and not watch:
            continue
        zoned = base_path in in_zones or head_path in in_zones
        base_data, head_data = sources.read("base", base_path), sources.read("head", head_path)
        if base_data is None or head_data is None:
            continue
        before = headers(base_data)
        if before is not None and before == headers(head_data):
            continue  # every def line is the same: so is every signature
        base_tree, head_tree = sources.parse("base", base_path), sources.parse("head", head_path)
        if base_tree is None or head_tree is None:
            continue
        parsed[head_path] = head_tree
        module = module_name(head_path)
        base_sigs = signatures(base_tree)
        for qualname, head_sig in signatures(head_tree).items():
            base_sig = base_sigs.get(qualname)
            full = f"{module}.{qualname}"
            if base_sig is None or not (zoned or matches(full, watch)):
                continue
            found = compare(head_path, full, base_sig, head_sig)
            if found is not None:
                out.append(found)
    return out, parsed


def judge_losses(
    path: str,
    calls: list[Call],
    sources: Sources,
    base_path: str | None,
    bases: list[str | None],
) -> tuple[list[Finding], int]:
    """The swapped-looking loss calls of a changed file at head, and how many loss calls it has.

    A call that stands, as is, in the file's base (or in another changed file's base: it
    moved) is not this change's doing; the others are judged by their argument names and
    against the calls of the file's base."""
    out: list[Finding] = []
    found = loss_calls(calls)
    before: set[tuple[str, ...]] | None = None
    for call in found:
        by_name = swapped_by_name(call)
        code = sources.text(path, call.call.node)
        stood = sources.in_base(code, [base_path]) or sources.in_base(code, bases)
        if not stood:
            if before is None:  # parse the base only for a call that is new or edited
                tree = sources.parse("base", base_path)
                before = (
                    set()
                    if tree is None
                    else {c.key for c in loss_calls(module_calls(tree, base_path or path))}
                )
            stood = call.key in before
        if stood:
            if by_name:
                out.append(for_loss(path, call, by_name, by_name=True, at_base=True))
            continue
        assert before is not None
        pair = by_name or swapped_from(call, before)
        if pair is not None:
            out.append(for_loss(path, call, pair, by_name=by_name is not None, at_base=False))
    return out, len(found)
