"""One call against one signature, bound as Python would bind it (pure).

What makes a docs example fail at once: a keyword no parameter takes, more positional arguments
than the function has, a required argument left out. Each problem carries the fix where one is
known: the keyword's new name (renamed from base to head, or the one closest in spelling), or a
positional argument passed by name where its parameter became keyword-only.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from gradgate.checks.api_contract.signatures import Signature
from gradgate.checks.config_docs.examples.model import Arg, CallClaim, How


@dataclass(frozen=True, slots=True)
class Problem:
    kind: str  # "keyword" | "positional" | "missing"
    name: str  # the keyword, the argument as written, or the missing parameter
    arg: Arg | None = None
    fix: str | None = None  # what to write instead of ``arg.text``; "" drops it


def problems(call: CallClaim, sig: Signature, base: Signature | None) -> list[Problem]:
    """What is wrong with ``call`` against ``sig``; ``base``: the signature at base, if known."""
    via_instance = call.how is not How.CALL or sig.qualname.endswith(".__init__")
    skip = sig.implicit(via_instance=via_instance)
    positional = sig.positional[skip:]
    takes = {p.name for p in positional[max(0, sig.positional_only - skip) :]}
    takes |= {p.name for p in sig.keyword_only}
    renamed = _renames(base, sig) if base is not None else {}
    found: list[Problem] = []
    for keyword, arg in call.keywords:
        if keyword in takes or sig.varkw:
            continue
        new = renamed.get(keyword) or _closest(keyword, takes - {k for k, _ in call.keywords})
        fix = f"{new}={arg.text.partition('=')[2]}" if new else ""
        found.append(Problem("keyword", keyword, arg, fix))
    if not sig.varargs and not call.star and len(call.positional) > len(positional):
        was = base.positional[skip:] if base is not None else ()
        for index, arg in enumerate(call.positional[len(positional) :], start=len(positional)):
            old = was[index].name if index < len(was) else None
            now = renamed.get(old, old) if old else None
            by_name = f"{now}={arg.text}" if now in {p.name for p in sig.keyword_only} else None
            found.append(Problem("positional", arg.text, arg, by_name))
    if not call.star and not call.starstar:
        given = {name for name, _ in call.keywords}
        required = [p.name for p in positional[len(call.positional) :] if p.default is None]
        required += [p.name for p in sig.keyword_only if p.default is None]
        found += [Problem("missing", name) for name in required if name not in given]
    return found


def _renames(base: Signature, head: Signature) -> dict[str, str]:
    """Base name -> head name of parameters at the same place with the same default."""
    renamed: dict[str, str] = {}
    head_names = set(head.names())
    for old_list, new_list in ((base.positional, head.positional),
                               (base.keyword_only, head.keyword_only)):  # fmt: skip
        for old, new in zip(old_list, new_list, strict=False):
            if old.name != new.name and old.name not in head_names and old.default == new.default:
                renamed[old.name] = new.name
    return renamed


def _closest(name: str, candidates: set[str]) -> str | None:
    found = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return found[0] if found else None
