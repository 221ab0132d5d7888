"""The words of the `api-contract` check: a Finding per changed signature or swapped loss call.

Which change is named first: a positional order that now means something else (silent), then
a renamed or removed parameter, then the rest (all of which fail loudly at the call).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from gradgate.checks.api_contract.allow import WHERE, AllowRule, accept_yaml, allowing
from gradgate.checks.api_contract.callsites import CallSite
from gradgate.checks.api_contract.changes import Change, Effect
from gradgate.checks.api_contract.losses import LossCall, Slot
from gradgate.checks.api_contract.signatures import Signature
from gradgate.checks.base import Finding, Severity, Suppression

REORDERED = "signature-reordered"
RENAMED = "parameter-renamed"
REMOVED = "parameter-removed"
KEYWORD_ONLY = "parameter-keyword-only"
POSITIONAL_ONLY = "parameter-positional-only"
REQUIRED = "parameter-required"
DEFAULT = "default-changed"
SWAPPED = "loss-arguments-swapped"
SWAPPED_BEFORE = "loss-arguments-swapped-at-base"
SKIPPED = "api-file-skipped"
BROKEN = "api-module-broken"
DEFAULTED = "defaulted"  # the Effect of a call that leaves out a parameter whose default changed
UNAFFECTED = "signatures-changed"  # many changes no call site feels, as one note
_UNAFFECTED = "No call site in this repository is affected"
# More notes than this of changes no call site feels are one note (issue 36: 2,128 rename notes
# in one report of a large library's release).
UNAFFECTED_SHOWN = 3


def for_change(
    change: Change, sites: list[CallSite], *, allow: Sequence[AllowRule] = ()
) -> tuple[list[Finding], list[Suppression]]:
    """Blocking when some call site is affected; otherwise a note on the change itself (issue
    36: a warning only for what a caller in this repository feels). Default changes warn, but
    not one that resolves to the same value. An `allow` rule that names the function turns
    its findings into notes with the rule's reason; each warning or blocking finding it turned
    so is also a suppression from the config, for the report's list (issue 34)."""
    out = []
    kind, what = _what_changed(change)
    defaulted = {e.argument for s in sites for e in s.effects if e.kind == DEFAULTED}
    sites = [
        replace(s, effects=kept)
        for s in sites
        if (kept := tuple(e for e in s.effects if e.kind != DEFAULTED))
    ]
    if kind is not None:
        where = f"`{_short(change)}`"
        absorbed = [s for s in sites if all(e.kind in _TAKEN for e in s.effects)]
        known = [s for s in sites if not s.probable and s not in absorbed]
        probable = [s for s in sites if s.probable and s not in absorbed]
        if known:
            out.append(_blocking(change, kind, where, what, known, probable))
        elif probable:
            out.append(probable_calls(change, kind, where, what, probable))
        elif absorbed:
            out.append(absorbed_calls(change, kind, where, what, absorbed))
        else:
            silent = kind == REORDERED
            out.append(
                Finding(
                    kind=kind,
                    severity=Severity.NOTE,
                    message=f"{where}: {what}. {_UNAFFECTED}"
                    + (
                        "; callers elsewhere that pass these arguments positionally would now "
                        "pass them to different parameters, silently. Say so in the changelog."
                        if silent
                        else "."
                    ),
                    file=change.path,
                    line=change.head.line,
                    revision="head",
                )
            )
    for name, old, new in change.defaults:
        # A warning when a call in this repository leaves it out (issue 36: who is affected
        # decides); else a note for the changelog.
        felt = name in defaulted
        out.append(
            Finding(
                kind=DEFAULT,
                severity=Severity.WARNING if felt else Severity.NOTE,
                message=f"`{_short(change)}`: the default of `{name}` changed: `{old}` → "
                f"`{new}`. "
                + (
                    f"Every call that leaves `{name}` out now gets the new value; pass it "
                    "explicitly where the old one is meant."
                    if felt
                    else f"{_UNAFFECTED} (none leaves `{name}` out); callers elsewhere that "
                    "leave it out get the new value. Say so in the changelog."
                ),
                file=change.path,
                line=change.head.line,
                revision="head",
            )
        )
    rule = allowing(allow, change.full)
    if rule is None:
        return out, []
    accepted = [
        Suppression(f"allow: {rule.pattern}", "config", f.file, f.line, rule.reason)
        for f in out
        if f.severity is not Severity.NOTE
    ]
    notes = [
        replace(
            f,
            severity=Severity.NOTE,
            message=f"Allowed by the config ({rule.reason}): {f.message}",
        )
        for f in out
    ]
    return notes, accepted


# Effects under which a call still runs and its values still arrive: a keyword the head's
# `**kwargs` takes, a positional argument its `*args` takes.
_TAKEN = ("absorbed", "packed")


def _what_changed(change: Change) -> tuple[str | None, str]:
    base, head = change.base, change.head
    if change.shifted:
        return REORDERED, f"the parameters are now `({_params(head)})`, were `({_params(base)})`"
    if change.renamed:
        renames = ", ".join(f"`{old}` → `{new}`" for old, new in change.renamed.items())
        return RENAMED, f"parameter renamed: {renames}"
    if change.removed:
        if head.varargs and not base.varargs:
            return REMOVED, f"parameters {_names(change.removed)} replaced by `*args`"
        return REMOVED, f"parameter removed: {_names(change.removed)}"
    if change.keyword_only:
        return KEYWORD_ONLY, f"now keyword-only: {_names(change.keyword_only)}"
    if change.positional_only:
        return POSITIONAL_ONLY, f"now positional-only: {_names(change.positional_only)}"
    if change.required:
        return REQUIRED, f"now required: {_names(change.required)}"
    return None, ""


def _blocking(
    change: Change,
    kind: str,
    where: str,
    what: str,
    sites: list[CallSite],
    probable: list[CallSite],
) -> Finding:
    silent = [s for s in sites if any(e.kind == "moved" and e.now for e in s.effects)]
    n = len(sites)
    shown = named(sites)
    if silent:
        harm = (
            f"{n} call site{'s' if n > 1 else ''} now pass{'' if n > 1 else 'es'} arguments to "
            "different parameters, silently"
        )
        # Keywords make a call order-proof only where every argument has a named parameter
        # to go to: not one that lands in `*args` (issue 36).
        keywords = "" if change.head.varargs else " (keywords make them order-proof)"
        fix = (
            f"Update those calls in this PR{keywords}, or keep the old order and add new "
            "parameters at the end."
        )
    else:
        harm = (
            f"{n} call site{'s' if n > 1 else ''} now fail{'' if n > 1 else 's'} with a TypeError"
        )
        if kind == REQUIRED:
            fix = "Update those calls in this PR, or give the new parameter a default."
        elif kind == REMOVED and change.head.varargs and not change.base.varargs:
            fix = (
                "Update those calls in this PR to pass the values positionally: `*args` takes them."
            )
        else:
            fix = "Update those calls in this PR, or keep the old name as an alias."
    if probable:
        p = len(probable)
        fix += (
            f" {p} more call site{'s are' if p > 1 else ' is'} probably affected: "
            f"{named(probable)} ({unknown(change)})."
        )
    accept = (
        f" If this change is intended, accept it with the `allow` rule at the end of the "
        f"details and your reason: {WHERE}."
    )
    return Finding(
        kind=kind,
        severity=Severity.BLOCKING,
        message=f"{where}: {what}. {harm}: {shown}. {fix}{accept}",
        file=change.path,
        line=change.head.line,
        details=listed([*sites, *probable]) + "\n\n" + accept_yaml(change.full),
        revision="head",
        details_lang="text",  # a list of call sites, then the rule
    )


def collapsed(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the notes of signature changes no call site feels as one note that
    counts them by kind and lists each in its details, when there are more than
    ``UNAFFECTED_SHOWN`` of them; a few stay as they are."""
    quiet = [
        f
        for f in findings
        if f.severity is Severity.NOTE and f.message.startswith("`") and _UNAFFECTED in f.message
    ]
    if len(quiet) <= UNAFFECTED_SHOWN:
        return list(findings)
    kinds = Counter(f.kind for f in quiet)
    counted = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
    files = sorted({f.file for f in quiet if f.file})
    shown = ", ".join(f"`{p}`" for p in files[:3]) + (
        f" and {len(files) - 3} more files" if len(files) > 3 else ""
    )
    positional = kinds[REORDERED] > 0
    note = Finding(
        kind=UNAFFECTED,
        severity=Severity.NOTE,
        message=f"{len(quiet)} signatures changed ({counted}) in {shown}; no call site in this "
        "repository is affected. Each is listed in the details"
        + (
            "; callers elsewhere that pass arguments positionally to a reordered one would "
            "now pass them to different parameters, silently: say so in the changelog."
            if positional
            else "."
        ),
        file=quiet[0].file,
        details="\n".join(
            f"{f.file}:{f.line}: {f.message.split(f'. {_UNAFFECTED}')[0]}" for f in quiet
        ),
        details_lang="text",
    )
    kept = [f for f in findings if f not in quiet]
    return [*kept, note]


def for_loss(
    path: str, call: LossCall, pair: tuple[int, int], *, by_name: bool, at_base: bool
) -> Finding:
    """A swapped-looking loss call: blocking when this PR wrote it, a note when it stood at base."""
    i, j = pair
    first, second = call.args[i], call.args[j]
    assert first is not None and second is not None
    a, b = ast.unparse(first), ast.unparse(second)
    slot_i, slot_j = call.slots[i], call.slots[j]
    how = (
        f"`{a}` is passed as `{slot_i.name}`{_role(slot_i)} and `{b}` as "
        f"`{slot_j.name}`{_role(slot_j)}, and their names say the opposite"
        if by_name
        else f"the call at base passed `{b}` as `{slot_i.name}` and `{a}` as `{slot_j.name}`"
    )
    code = ast.unparse(call.call.node)
    if at_base:
        return Finding(
            kind=SWAPPED_BEFORE,
            severity=Severity.NOTE,
            message=f"`{code}`: the arguments of `{call.shown}` look swapped ({how}); it was so at "
            "base already, so this change did not introduce it.",
            file=path,
            line=call.line,
            revision="head",
        )
    return Finding(
        kind=SWAPPED,
        severity=Severity.BLOCKING,
        message=f"`{code}`: the arguments of `{call.shown}` look swapped: {how}. `{call.shown}` "
        f"is not symmetric: it takes `({', '.join(s.name for s in call.slots)})`. Exchange "
        f"`{a}` and `{b}` (or pass them by keyword).",
        file=path,
        line=call.line,
        revision="head",
    )


def skipped(path: str, why: str) -> Finding:
    return Finding(
        kind=SKIPPED,
        severity=Severity.NOTE,
        message=f"`{path}` was not read for API contracts: {why}. Check its signatures and calls "
        "by hand.",
        file=path,
    )


def broken(path: str, why: str, line: int | None) -> Finding:
    """A module that parsed at base and does not at head: the PR broke it."""
    return Finding(
        kind=BROKEN,
        severity=Severity.BLOCKING,
        message=f"this PR broke `{path}`: {why}, while it parsed at base. Every caller of it "
        "breaks, and its signatures and loss calls could not be checked. Fix it so it parses.",
        file=path,
        line=line,
        revision="head",
    )


def unsearched(paths: list[str]) -> Finding:
    named = ", ".join(f"`{p}`" for p in paths[:3])
    more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
    return Finding(
        kind=SKIPPED,
        severity=Severity.NOTE,
        message=f"{len(paths)} Python file{'s' if len(paths) > 1 else ''} of the repository could "
        f"not be searched for call sites (they do not parse, or are over 2 MB): {named}{more}.",
        file=paths[0],
    )


def summary(findings: Iterable[Finding], *, signatures: int, calls: int) -> str:
    counts = Counter(f.kind for f in findings if f.severity is Severity.BLOCKING)
    parts = []
    if counts[BROKEN]:
        n = counts[BROKEN]
        parts.append(f"{n} module{'s' if n > 1 else ''} no longer parse{'' if n > 1 else 's'}")
    changed = sum(
        counts[k] for k in (REORDERED, RENAMED, REMOVED, KEYWORD_ONLY, POSITIONAL_ONLY, REQUIRED)
    )
    if changed:
        verb = "break" if changed > 1 else "breaks"
        parts.append(f"{changed} signature change{'s' if changed > 1 else ''} {verb} callers")
    if counts[SWAPPED]:
        n = counts[SWAPPED]
        parts.append(f"{n} loss call{'s' if n > 1 else ''} with swapped arguments")
    if parts:
        return "; ".join(parts)[:140]
    return (
        f"no caller broken ({signatures} changed signature{'s' if signatures != 1 else ''}, "
        f"{calls} loss call{'s' if calls != 1 else ''} checked)"
    )[:140]


def _role(slot: Slot) -> str:
    """What a parameter named `input` or `log_probs` stands for; `target` says it itself."""
    return " (the prediction)" if slot.role == "prediction" else ""


def _short(change: Change) -> str:
    return change.head.qualname


def _params(sig: Signature) -> str:
    skip = sig.implicit(via_instance=True)
    shown = [p.name for p in sig.positional[skip:]]
    if sig.varargs:
        shown.append("*args")
    elif sig.keyword_only:
        shown.append("*")
    shown += [p.name for p in sig.keyword_only]
    if sig.varkw:
        shown.append("**kwargs")
    return ", ".join(shown)


def _names(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


# -- how a finding lists call sites: `path:line` in its message, and in its details each call
# with what the change does to it; the two warnings made of call sites alone: the probable ones,
# and the ones whose keyword the head's `**kwargs` (or positional argument its `*args`) takes --

_LISTED = 3  # call sites named in a message; the details list them all
_DETAILS = 50  # call sites in the details


def named(sites: list[CallSite]) -> str:
    more = f" and {len(sites) - _LISTED} more" if len(sites) > _LISTED else ""
    return ", ".join(f"`{s.path}:{s.line}`" for s in sites[:_LISTED]) + more


def unknown(change: Change) -> str:
    method = change.full.rpartition(".")[2]
    return (
        f"what they call `{method}` on is not known, and `{method}` is the only method of that "
        "name in this repository"
    )


def listed(sites: list[CallSite]) -> str:
    lines = [
        f"{s.path}:{s.line}: {s.code}{'  (probably)' if s.probable else ''}\n"
        f"    {effects(s.effects)}"
        for s in sites[:_DETAILS]
    ]
    if len(sites) > _DETAILS:
        lines.append(f"… ({len(sites) - _DETAILS} more call sites)")
    return "\n".join(lines)


def effects(said: Iterable[Effect]) -> str:
    parts = []
    for e in said:
        if e.kind == "moved":
            now = f"now goes to `{e.now}`" if e.now else "now has no parameter to go to"
            parts.append(f"`{e.argument}` went to `{e.was}`, {now}")
        elif e.kind == "keyword-only":
            parts.append(f"`{e.argument}` is passed positionally to `{e.now}`, now keyword-only")
        elif e.kind == "renamed":
            parts.append(f"passes `{e.argument}=`, now called `{e.now}`")
        elif e.kind == "removed":
            parts.append(f"passes `{e.argument}=`, no longer a parameter")
        elif e.kind == "absorbed":
            now = f" (the parameter is now `{e.now}`)" if e.now else ""
            parts.append(f"passes `{e.argument}=`, which now lands in `**kwargs`{now}")
        elif e.kind == "packed":
            parts.append(f"`{e.argument}` went to `{e.was}`, now lands in `*args` in its place")
        elif e.kind == "positional-only":
            parts.append(f"passes `{e.argument}=` by keyword, now positional-only")
        else:
            parts.append(f"does not pass `{e.argument}`, now required")
    return "; ".join(parts)


def absorbed_calls(
    change: Change, kind: str, where: str, what: str, sites: list[CallSite]
) -> Finding:
    """Calls that still pass a removed or renamed keyword, which the head's `**kwargs` now
    takes: nothing fails, but the value may no longer do anything (a warning). Calls whose
    positional arguments the head's `*args` now takes, in their order, and nothing else: a
    note (issue 36: `def default(val, d)` -> `def default(*args)` breaks no caller)."""
    n = len(sites)
    if not any(e.kind == "absorbed" for s in sites for e in s.effects):
        who = f"The {n} call sites here pass" if n > 1 else "The call site here passes"
        return Finding(
            kind=kind,
            severity=Severity.NOTE,
            message=f"{where}: {what}. {who} these arguments positionally, and `*args` now "
            f"takes them in the same order: {named(sites)}. Nothing to do if the function reads "
            "them from `*args` in that order.",
            file=change.path,
            line=change.head.line,
            details=listed(sites),
            revision="head",
            details_lang="text",
        )
    return Finding(
        kind=kind,
        severity=Severity.WARNING,
        message=f"{where}: {what}. {n} call site{'s' if n > 1 else ''} still pass"
        f"{'' if n > 1 else 'es'} the old keyword, which now lands in `**kwargs` without an "
        f"error: {named(sites)}. Check that the value is still used, or drop it from "
        f"{'those calls' if n > 1 else 'that call'}.",
        file=change.path,
        line=change.head.line,
        details=listed(sites),
        revision="head",
        details_lang="text",
    )


def probable_calls(
    change: Change, kind: str, where: str, what: str, probable: list[CallSite]
) -> Finding:
    """Only calls on receivers of unknown type: a warning, since the guess may be wrong."""
    p = len(probable)
    return Finding(
        kind=kind,
        severity=Severity.WARNING,
        message=f"{where}: {what}. {p} call site{'s are' if p > 1 else ' is'} probably affected: "
        f"{named(probable)} ({unknown(change)}). Update {'them' if p > 1 else 'it'} in this PR "
        "if they call this method.",
        file=change.path,
        line=change.head.line,
        details=listed(probable),
        revision="head",
        details_lang="text",
    )
