"""Claims against facts at one revision -> the disagreements there (pure).

A value claim agrees when any fact it names has the same value (a README's `batch_size: 32` is
right if some config says 32; several configs may define one key). It disagrees when the facts it
names all say otherwise, and its key is gone when it named facts at base and names none at head.
Each disagreement has a signature that stays the same across the two revisions (doc renames
followed, lines ignored), so the verdict can tell new ones from those that were already there.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

from gradgate.checks.config_docs.model import (
    Claim,
    Fact,
    ImportClaim,
    Key,
    PathClaim,
    Problem,
    ValueClaim,
)
from gradgate.checks.config_docs.snapshot import Snapshot
from gradgate.checks.config_docs.values import Value, norm, same

Signature = tuple[str, ...]
# Problems that leave nothing of a file read. They share one signature, so a doc binary at base
# and not UTF-8 at head was already unreadable before the PR.
WHOLE_FILE = frozenset({"unreadable", "skipped", "unparsed"})


@dataclass(frozen=True, slots=True)
class Disagreement:
    kind: str  # "value", "key-gone", "import", "path", "undocumented", or a Problem's kind
    signature: Signature
    claim: Claim | None = None
    facts: tuple[Fact, ...] = ()  # what the claim disagrees with (key-gone: the facts at base)
    why: str = ""  # import: why it does not resolve
    problem: Problem | None = None
    renamed: Key | None = None  # key-gone: a new key in the same file with the old value
    line: int | None = None  # where the finding points, when not the claim's line (examples)
    suggestion: str | None = None  # the corrected doc line (examples)


class FactIndex:
    """Facts by the last part of every path they are known by; lookups cached per claimed key."""

    def __init__(self, facts: tuple[Fact, ...]) -> None:
        self._by_name: dict[str, list[Fact]] = defaultdict(list)
        for fact in facts:
            for name in {path[-1] for path in (fact.key, *fact.aliases)}:
                self._by_name[name].append(fact)
        self.by_place = {(fact.file, fact.key): fact for fact in facts}
        self.by_file: dict[str, list[Fact]] = defaultdict(list)
        for fact in facts:
            self.by_file[fact.file].append(fact)
        self._named: dict[tuple[Key, bool], Named] = {}

    def named(self, claim: ValueClaim) -> Named:
        """The facts ``claim`` names, and their values in normal form."""
        wanted = (claim.key, claim.rooted)
        if wanted not in self._named:
            found = tuple(
                fact
                for fact in self._by_name.get(claim.key[-1], ())
                if fact.matches(claim.key, rooted=claim.rooted)
            )
            unknown = any(fact.value.kind == "unknown" for fact in found)
            self._named[wanted] = Named(found, frozenset(norm(f.value) for f in found), unknown)
        return self._named[wanted]


@dataclass(frozen=True, slots=True)
class Named:
    facts: tuple[Fact, ...]
    values: frozenset[Hashable]
    unknown: bool  # some fact's value cannot be known statically (`${oc.env:X}`)


def disagreements(
    snap: Snapshot,
    facts: FactIndex,
    *,
    unresolved: Callable[[ImportClaim], str | None],
    missing: Callable[[PathClaim], bool],
    base: Snapshot | None = None,
    base_facts: FactIndex | None = None,
    at_base: Mapping[str, str] | None = None,
) -> tuple[list[Disagreement], set[str]]:
    """The disagreements in ``snap``, and the config files some claim documents.

    With ``base``/``base_facts`` (evaluating head), a claim that names no fact here but did at
    base is a key gone, and a file argument of a command counts if it existed at base.
    ``at_base`` maps a head path to its base path where the PR moved the file.
    """
    renamed = at_base or {}
    # A config that cannot be read here says nothing: its keys are not gone, only unknown.
    unknown = {renamed.get(p.file, p.file) for p in snap.problems if p.config}
    found: list[Disagreement] = []
    seen: dict[int, Named] = {}  # the lookups made: which config files the docs document
    sig: Signature
    for claim in snap.claims:
        doc = renamed.get(claim.doc, claim.doc)
        if isinstance(claim, ValueClaim):
            named = facts.named(claim)
            seen[id(named)] = named
            if named.unknown:
                continue  # `${oc.env:X}` and the like: no way to tell
            if named.facts and norm(claim.value) not in named.values:
                sig = ("value", doc, ".".join(claim.key), _norm(claim.value))
                found.append(Disagreement("value", sig, claim, named.facts))
            elif (
                not named.facts
                and base_facts is not None
                and (before := base_facts.named(claim).facts)
                and not any(fact.file in unknown for fact in before)
            ):
                sig = ("key-gone", doc, ".".join(claim.key))
                new_name = _renamed(before[0], facts, base_facts, renamed)
                found.append(Disagreement("key-gone", sig, claim, before, renamed=new_name))
        elif isinstance(claim, ImportClaim):
            why = unresolved(claim)
            if why is not None:
                sig = ("import", doc, claim.module, claim.name or "")
                found.append(Disagreement("import", sig, claim, why=why))
        elif isinstance(claim, PathClaim) and _counts(claim, base) and missing(claim):
            found.append(Disagreement("path", ("path", doc, claim.target), claim))
    for problem in snap.problems:
        kind = "unreadable" if problem.kind in WHOLE_FILE else problem.kind
        sig = (kind, renamed.get(problem.file, problem.file))
        found.append(Disagreement(problem.kind, sig, problem=problem))
    documented = {fact.file for named in seen.values() for fact in named.facts}
    return found, documented


def undocumented(
    head: Snapshot,
    documented: set[str],
    head_facts: FactIndex,
    base_facts: FactIndex,
    file_at_base: Mapping[str, str],
) -> list[Disagreement]:
    """Keys new at head, in a file whose other keys the docs document, that no claim names."""
    lookups = {
        id(n): n for c in head.claims if isinstance(c, ValueClaim) for n in [head_facts.named(c)]
    }
    claimed = {(f.file, f.key) for named in lookups.values() for f in named.facts}
    new = []
    for fact in head.facts:
        old = (file_at_base.get(fact.file, fact.file), fact.key)
        if (
            fact.file in documented
            and old not in base_facts.by_place
            and (fact.file, fact.key) not in claimed
        ):
            sig = ("undocumented", fact.file, ".".join(fact.key))
            new.append(Disagreement("undocumented", sig, facts=(fact,)))
    return new


def _renamed(old: Fact, head: FactIndex, base: FactIndex, at_base: Mapping[str, str]) -> Key | None:
    """A key new at head in the file that held ``old``, with ``old``'s value: its new name."""
    for path, facts in head.by_file.items():
        if at_base.get(path, path) != old.file:
            continue
        for fact in facts:
            if (old.file, fact.key) not in base.by_place and same(fact.value, old.value):
                return fact.key
    return None


def _counts(claim: PathClaim, base: Snapshot | None) -> bool:
    """A file argument is checked only where it existed at base (it may be an output)."""
    if claim.kind != "file":
        return True
    return base is not None and claim.target in base.files


def _norm(value: Value) -> str:
    return repr(norm(value))
