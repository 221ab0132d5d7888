"""The docs examples that do not run at a revision: calls and options, as disagreements.

Called once per revision with that revision's ``Definitions`` and ``Scripts``; at head also with
base's, so a renamed keyword or option can be named in the fix. Signatures leave out lines and
values, so the verdict's rule holds as for the other claims: an example that already failed at
base is a note, one the PR broke (in the code, or in the doc) blocks.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping

from gradgate.checks.api_contract.signatures import Signature
from gradgate.checks.config_docs.compare import Disagreement
from gradgate.checks.config_docs.examples.binding import problems
from gradgate.checks.config_docs.examples.defs import Defined, Definitions, Missing
from gradgate.checks.config_docs.examples.model import CallClaim, How, OptionClaim
from gradgate.checks.config_docs.examples.options import Scripts
from gradgate.checks.config_docs.examples.words import call_broken, call_gone, option_unknown
from gradgate.checks.config_docs.snapshot import Reader, Snapshot


def owned_only(snap: Snapshot, owned: frozenset[str]) -> Snapshot:
    """``snap`` without the calls of other packages' code (`torch.randn(...)`)."""
    kept = tuple(
        c for c in snap.claims if not isinstance(c, CallClaim) or c.target.split(".")[0] in owned
    )
    return dataclasses.replace(snap, claims=kept)


class Revision:
    """What the examples are judged against at one revision."""

    def __init__(self, reader: Reader, snap: Snapshot, owned: frozenset[str]) -> None:
        self.snap = snap
        self.owned = owned
        self.defs = Definitions(reader, snap)
        self.scripts = Scripts(reader, snap)
        self._reader = reader

    def doc_lines(self, doc: str) -> list[str]:
        text = self._reader.text(self.snap.revision, doc)
        return text.splitlines() if isinstance(text, str) else []


def examples(
    here: Revision, base: Revision | None = None, at_base: Mapping[str, str] | None = None
) -> list[Disagreement]:
    """The examples of ``here`` that fail there; ``base`` (at head): for the fixes' names;
    ``at_base``: head path -> base path of docs the PR moved (signatures name the base path)."""
    moved = at_base or {}
    found: list[Disagreement] = []
    for claim in here.snap.claims:
        if isinstance(claim, CallClaim):
            found += _call(claim, here, base)
        elif isinstance(claim, OptionClaim):
            found += _option(claim, here, base)
    return [
        dataclasses.replace(d, signature=(d.signature[0], moved.get(d.signature[1], d.signature[1]), *d.signature[2:]))
        for d in found
    ]


def _call(claim: CallClaim, here: Revision, base: Revision | None) -> list[Disagreement]:
    target = here.defs.find(claim.target)
    if isinstance(target, Missing):
        if claim.how is not How.CALL or claim.imported:
            return []  # the import claim, or the call that made the instance, says it
        sig = ("call-gone", claim.doc, claim.target)
        return [Disagreement("call", sig, claim, why=call_gone(claim, target.why))]
    head_sig = _signature(here.defs, target, claim)
    if head_sig is None or not isinstance(target, Defined):
        return []
    base_sig = None
    if base is not None:
        before = base.defs.find(claim.target)
        base_sig = _signature(base.defs, before, claim) if isinstance(before, Defined) else None
    found = problems(claim, head_sig, base_sig)
    if not found:
        return []
    lines = here.doc_lines(claim.doc)
    why, line, suggestion = call_broken(claim, target.path, head_sig, found, lines)
    said = sorted(f"{p.kind}:{p.name}" for p in found)
    signature = ("call", claim.doc, claim.target, claim.member, *said)
    return [Disagreement("call", signature, claim, why=why, line=line, suggestion=suggestion)]


def _signature(defs: Definitions, found: object, claim: CallClaim) -> Signature | None:
    if not isinstance(found, Defined):
        return None
    if claim.how is How.CALL:
        return defs.signature(found)
    if not hasattr(found.node, "bases"):
        return None  # an instance of a function's result: not a class this can read
    member = "forward" if claim.how is How.INSTANCE else claim.member
    return defs.signature(found, member=member)


def _option(claim: OptionClaim, here: Revision, base: Revision | None) -> list[Disagreement]:
    path = here.scripts.path_of(claim.script, module=claim.module)
    if path is None:
        return []  # a missing script is the path claim's finding
    accepted = here.scripts.accepted(path)
    if accepted is None:
        return []
    if claim.override:
        if accepted.parser != "hydra" or accepted.accepts_override(claim.option):
            return []
        choices = accepted.overrides
    else:
        if accepted.accepts_flag(claim.option):
            return []
        choices = accepted.flags
    renamed = None
    if base is not None:
        before_path = base.scripts.path_of(claim.script, module=claim.module)
        before = base.scripts.accepted(before_path) if before_path else None
        if before is not None:
            new = sorted((choices - before.flags - before.overrides))
            close = difflib.get_close_matches(claim.option, new, n=1, cutoff=0.5)
            renamed = close[0] if close else None
    if renamed is None:
        close = difflib.get_close_matches(claim.option, sorted(choices), n=1, cutoff=0.75)
        renamed = close[0] if close else None
    why, suggestion = option_unknown(claim, accepted, renamed)
    sig = ("option", claim.doc, claim.script, claim.option)
    return [Disagreement("option", sig, claim, why=why, suggestion=suggestion)]
