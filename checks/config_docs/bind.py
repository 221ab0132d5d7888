"""Ties what the docs say to the settings a revision defines, before they are compared (pure).

Two steps between reading a revision and comparing it: ``tiered`` keeps a parameter default
only where no config, dataclass field or option defines a setting of that name; ``bind`` turns
each claim written in words ("a batch size of 32") into a claim about the first setting of its
names that the revision defines, and drops it where none is defined: a phrase that names no
setting claims nothing, and a setting renamed under it is not "gone" from the docs.
"""

from __future__ import annotations

import dataclasses

from gradgate.checks.config_docs.claims.prose import WordClaim
from gradgate.checks.config_docs.compare import FactIndex
from gradgate.checks.config_docs.model import Claim, Fact, ValueClaim
from gradgate.checks.config_docs.snapshot import Snapshot
from gradgate.checks.config_docs.sources.parameter_facts import is_parameter_default


def tiered(snap: Snapshot) -> Snapshot:
    """``snap`` without the parameter defaults that a stronger source's names shadow."""
    strong = {
        path[-1]
        for fact in snap.facts
        if not is_parameter_default(fact)
        for path in (fact.key, *fact.aliases)
    }
    kept = tuple(
        fact for fact in snap.facts if not is_parameter_default(fact) or fact.key[-1] not in strong
    )
    return dataclasses.replace(snap, facts=kept)


def without_parameter_defaults(snap: Snapshot) -> Snapshot:
    """``snap`` with its config, dataclass and option facts only: what "undocumented" judges."""
    return dataclasses.replace(
        snap, facts=tuple(f for f in snap.facts if not is_parameter_default(f))
    )


def bind(snap: Snapshot, facts: FactIndex) -> Snapshot:
    """``snap`` with each word claim bound to a setting ``facts`` defines, or dropped."""
    claims: list[Claim] = []
    for claim in snap.claims:
        if not isinstance(claim, WordClaim):
            claims.append(claim)
            continue
        for key in claim.names:
            probe = ValueClaim(
                claim.doc,
                claim.line,
                key,
                claim.value,
                claim.form,
                claim.line_text,
                claim.value_at,
            )
            if _strong(facts.named(probe).facts):
                claims.append(probe)
                break
    return dataclasses.replace(snap, claims=tuple(claims))


def _strong(facts: tuple[Fact, ...]) -> bool:
    """A word claim binds to configs, dataclass fields and options: names in prose are too
    loose to pin on one function's parameter."""
    return any(not is_parameter_default(fact) for fact in facts)
