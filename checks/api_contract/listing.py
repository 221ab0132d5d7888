"""How a finding lists call sites: `path:line` in its message, and in its details each call
with what the change does to it (pure words, shared by the blocking and the probable finding).
"""

from __future__ import annotations

from collections.abc import Iterable

from gradgate.checks.api_contract.callsites import CallSite
from gradgate.checks.api_contract.changes import Change, Effect

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
        elif e.kind == "positional-only":
            parts.append(f"passes `{e.argument}=` by keyword, now positional-only")
        else:
            parts.append(f"does not pass `{e.argument}`, now required")
    return "; ".join(parts)
