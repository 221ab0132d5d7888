"""How a finding lists call sites: `path:line` in its message, and in its details each call
with what the change does to it (pure words, shared by the blocking and the probable finding),
and the two warnings made of call sites alone: the probable ones, and the ones whose keyword
the head's `**kwargs` (or whose positional argument its `*args`) now takes.
"""

from __future__ import annotations

from collections.abc import Iterable

from gradgate.checks.api_contract.callsites import CallSite
from gradgate.checks.api_contract.changes import Change, Effect
from gradgate.checks.base import Finding, Severity

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
