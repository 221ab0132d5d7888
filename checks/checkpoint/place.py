"""Where a checkpoint finding points, and how an intended break is accepted (issue 20).

Pure. A finding about a key points at the line the PR changed that makes the key (the
assignment of a renamed submodule, a removed `register_buffer`), else at a changed line in the
class that owns it, else at that class, saying so (``model.lines``). A blocking finding carries
the config that accepts it, ready to paste: `allow:` with a reason for keys old checkpoints
cannot follow, `migrations:` with `null` for keys dropped on purpose; an `allow:` rule that
covers every key of a finding turns it into a note with the rule's reason.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from gradgate.checks.base import Finding, Severity, Suppression
from gradgate.checks.checkpoint.settings import KeyAllowRule
from gradgate.checks.checkpoint.snippets import migration_yaml
from gradgate.checks.fold import PLACE, Folded, fold, missing_copies, split, stem
from gradgate.checks.model.lines import ClassSource, PullDiff, changed_line, locate
from gradgate.checks.paste import REASON, TAKES_EFFECT, quote

ALLOW_HINT = (
    "If this is intended, paste the `allow` rule in the details, with your reason; the rule "
    f"{TAKES_EFFECT}."
)
DROP_HINT = (
    "If they are gone on purpose, paste the `migrations` rule in the details; the rule "
    f"{TAKES_EFFECT}."
)


def key_pattern(keys: Sequence[str], universe: Collection[str] = ()) -> str:
    """One regex for exactly ``keys``, folded over block indices: `^blocks\\.(0|3)\\.b$`.

    The factory builds a small model (`h.0`, `h.1`), real checkpoints have more layers: a
    finding in every copy the model has (indices from 0 on, none of ``universe``'s left out)
    gets `\\d+`, so the rule still matches a 48-layer checkpoint (issue 36). Some copies only
    keep their indices."""
    parts = []
    for folded in fold(keys):
        pieces = [re.escape(p) for p in folded.template.split(PLACE)]
        text = pieces[0]
        columns = list(zip(*folded.numbers, strict=True)) if folded.numbers[0] else []
        every = _every_copy(folded, universe)
        for column, rest in zip(columns, pieces[1:], strict=True):
            numbers = sorted(set(column))
            if every and numbers == list(range(len(numbers))):
                text += r"\d+"
            else:
                text += str(numbers[0]) if len(numbers) == 1 else f"({'|'.join(map(str, numbers))})"
            text += rest
        parts.append(text)
    return "^" + (parts[0] if len(parts) == 1 else "(" + "|".join(parts) + ")") + "$"


def _every_copy(folded: Folded, universe: Collection[str]) -> bool:
    """Does ``folded`` stand for every copy of its block: two or more with none left out, or
    every one that ``universe`` (the model's keys) has?"""
    if missing_copies(folded, universe):
        return False
    if folded.copies > 1 or not folded.numbers[0]:
        return True
    block = stem(folded.template)
    return any(
        stem(t) == block for t, n in map(split, universe) if len(n) == len(folded.numbers[0])
    )


def allow_yaml(keys: Sequence[str], universe: Collection[str] = ()) -> str:
    return "\n".join(
        [
            "checks:",
            "  checkpoint:",
            "    allow:",
            f"      - keys: {quote(key_pattern(keys, universe))}",
            f"        reason: {quote(REASON)}",
        ]
    )


@dataclass(frozen=True, slots=True)
class Placer:
    """Makes a judgement's findings: at the line, accepted by the config where it says so."""

    reference: str | None  # the reference file, where a finding has no code to point at
    locations: Mapping[str, tuple[str, int]]  # model key -> the line that makes it, at head
    classes: Mapping[str, ClassSource]
    diff: PullDiff
    allow: Sequence[KeyAllowRule] = ()
    # The findings an `allow:` rule of the (base's) config accepted, for the report (issue 34).
    suppressed: list[Suppression] = field(default_factory=list)

    def finding(
        self,
        kind: str,
        severity: Severity,
        message: str,
        details: str | None = None,
        *,
        at: str | None = None,
        keys: Sequence[str] = (),
        drop: bool = False,
        line: tuple[str | None, int | None] | None = None,
    ) -> Finding:
        """``at``: the key whose code it points at; ``keys``: every key it names (for
        `allow:`); ``drop``: the keys are the checkpoint's, a `null` migration accepts them;
        ``line``: a place already known (an environment key's condition)."""
        rule = self._allowing(keys) if severity is not Severity.NOTE else None
        if rule is not None:
            severity, message = Severity.NOTE, f"Allowed by the config ({rule.reason}): {message}"
            details = None
        elif severity is Severity.BLOCKING and details is None and keys:
            if drop:
                message += " " + DROP_HINT
                details = migration_yaml([(key_pattern(keys, self.locations), None)])
            else:
                message += " " + ALLOW_HINT
                details = allow_yaml(keys, self.locations)
        file, number, revision = self.reference, None, None
        if line is not None and line[0] is not None:
            file, number, revision = line[0], line[1], "head"
        elif at is not None:
            place = self._place(at)
            if place is not None:
                file, number, revision = place[0], place[1], "head"
                message += f" ({place[2]}.)"
        if rule is not None:
            self.suppressed.append(
                Suppression(f"allow: {rule.keys}", "config", file, number, rule.reason)
            )
        return Finding(
            kind,
            severity,
            message,
            file=file,
            line=number,
            details=details,
            revision=revision,
            details_lang="yaml" if details and details.startswith("checks:") else "diff",
        )

    def _allowing(self, keys: Sequence[str]) -> KeyAllowRule | None:
        for rule in self.allow:
            if keys and all(re.search(rule.keys, key) for key in keys):
                return rule
        return None

    def _place(self, key: str) -> tuple[str, int, str] | None:
        defined = self.locations.get(key)
        if defined is not None:
            file, line = defined
            here = ClassSource("", file, line, line, line)
            if changed_line(self.diff, here) is not None:
                return file, line, "it points at the line this PR changed that makes it"
        spot = locate([key.rpartition(".")[0]], self.classes, self.diff)
        if spot is not None:
            return spot.file, spot.line, spot.words
        if defined is not None:
            return defined[0], defined[1], "it points at the line that makes it"
        return None
