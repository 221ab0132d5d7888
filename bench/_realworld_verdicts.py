"""The realworld bench's pure parts: a blocking finding's identity, the verdict file, the figure.

A block is identified by library, release pair, check, the finding's kind and its file (not its
line or wording, which move between versions of gradgate). ``realworld-verdicts.yaml`` judges
each block once, by reading the release diff:

    - library: transformers
      pair: 5.20.0..5.20.1
      check: checkpoint
      finding: checkpoint-missing-keys @ transformers/models/gpt2/modeling_gpt2.py
      verdict: intended    # intended | true | false
      reason: GPT-2 drops the attention bias buffer on purpose (release notes)

``intended``: the release meant the change and a reviewer would accept it through the config;
``true``: a real regression; ``false``: gradgate was wrong (a bug to fix).

Every kind of warning is judged once too, for all pairs (issue 36: a warning a team learns to
skip hides the one that matters):

    - warning: gradient-untested
      verdict: useful      # useful | noise
      reason: names the flag to turn on; a variant with it covers the lines

Per pair the bench counts the blocking, warning and note items by kind (``items_in``).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

VERDICTS = ("intended", "true", "false")
WARNING_VERDICTS = ("useful", "noise")
SEVERITIES = ("blocking", "warning", "note")


class VerdictFileError(ValueError):
    """The verdict file is not a list of complete, known verdicts."""


@dataclass(frozen=True, slots=True, order=True)
class Block:
    library: str
    pair: str  # "base..head"
    check: str
    finding: str  # "kind @ file"

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.library, self.pair, self.check, self.finding)


@dataclass(frozen=True, slots=True)
class Verdict:
    verdict: str
    reason: str


@dataclass(frozen=True, slots=True)
class Tally:
    blocks: int
    false: int
    true: int
    intended: int
    unjudged: tuple[Block, ...]

    def figure(self) -> str:
        return (
            f"figure: realworld_false_alarms = {self.false}/{self.blocks} (target 0) "
            f"{'ok' if self.false == 0 and not self.unjudged else 'MISSED'}"
        )


def block_of(library: str, pair: str, check: str, finding: Mapping[str, Any]) -> Block:
    """The identity of one blocking finding of the gate's JSON report."""
    where = finding.get("file") or "(no file)"
    return Block(library, pair, check, f"{finding.get('kind')} @ {where}")


def blocks_in(library: str, pair: str, report: Mapping[str, Any]) -> list[Block]:
    """Every distinct blocking finding of one `gradgate check --format json` report; a check
    that errored has no verdict to judge (the bench reports it as an error instead)."""
    found = {
        block_of(library, pair, row["name"], finding)
        for row in report.get("checks", ())
        if row.get("outcome") != "error"
        for finding in row.get("findings", ())
        if finding.get("severity") == "blocking"
    }
    return sorted(found)


def items_in(report: Mapping[str, Any]) -> dict[str, Counter[str]]:
    """Severity -> how many findings of each kind one `gradgate check --format json` report
    holds, for the checks that ran (one that errored is an error, not a count)."""
    found: dict[str, Counter[str]] = {s: Counter() for s in SEVERITIES}
    for row in report.get("checks", ()):
        if row.get("outcome") == "error":
            continue
        for finding in row.get("findings", ()):
            severity = finding.get("severity")
            if severity in found:
                found[severity][str(finding.get("kind"))] += 1
    return found


def items_line(items: Mapping[str, Counter[str]]) -> str:
    """ "blocking 1 (gradient-lost-gradient 1); warning 2 (...); note 0"."""
    parts = []
    for severity in SEVERITIES:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(items[severity].items()))
        total = sum(items[severity].values())
        parts.append(f"{severity} {total}" + (f" ({kinds})" if kinds else ""))
    return "; ".join(parts)


NoteKey = tuple[str, str, str, str]  # check, kind, file, message without its numbers
_NUMBERS = re.compile(r"\d+")


def notes_in(report: Mapping[str, Any]) -> set[NoteKey]:
    """The notes of one report, each identified without its line numbers and counts (which
    move between releases while the note says the same)."""
    return {
        (row["name"], str(f.get("kind")), str(f.get("file") or ""),
         _NUMBERS.sub("#", str(f.get("message", ""))))
        for row in report.get("checks", ())
        if row.get("outcome") != "error"
        for f in row.get("findings", ())
        if f.get("severity") == "note"
    }  # fmt: skip


def repeated_notes(
    before: Iterable[NoteKey], now: Iterable[NoteKey], changed: Iterable[str]
) -> list[NoteKey]:
    """Notes of a pair that the previous pair of the same library gave too, about a file this
    pair did not change (issue 36: a note that says the same on every PR is learned to skip)."""
    touched, earlier = set(changed), set(before)
    return sorted(n for n in set(now) if n in earlier and n[2] not in touched)


@dataclass(frozen=True, slots=True)
class WarningTally:
    """Warnings over every pair: per PR on average, and the kinds judged noise or not judged."""

    pairs: int
    warnings: int
    noise: tuple[str, ...]
    unjudged: tuple[str, ...]

    def figure(self) -> str:
        per_pr = self.warnings / self.pairs if self.pairs else 0.0
        ok = per_pr <= 1.0 and not self.noise and not self.unjudged
        return (
            f"figure: realworld_warnings_per_pr = {per_pr:.2f} (target <= 1.0, every kind "
            f"useful) {'ok' if ok else 'MISSED'}"
        )


def tally_warnings(
    per_pair: Sequence[Mapping[str, Counter[str]]], judged: Mapping[str, Verdict]
) -> WarningTally:
    kinds = sorted({k for items in per_pair for k in items["warning"]})
    return WarningTally(
        pairs=len(per_pair),
        warnings=sum(sum(items["warning"].values()) for items in per_pair),
        noise=tuple(k for k in kinds if k in judged and judged[k].verdict == "noise"),
        unjudged=tuple(k for k in kinds if k not in judged),
    )


def unjudged_warning_entries(kinds: Iterable[str]) -> str:
    """YAML to paste into the verdict file for warning kinds nobody has judged yet."""
    entries = [
        {"warning": k, "verdict": "JUDGE: useful | noise", "reason": "JUDGE: one line"}
        for k in kinds
    ]
    return yaml.safe_dump(entries, sort_keys=False, width=100)


def parse_warning_verdicts(text: str) -> dict[str, Verdict]:
    """The verdict file's judgements of warning kinds, by kind."""
    found: dict[str, Verdict] = {}
    for index, entry in _entries(text):
        if "warning" not in entry:
            continue
        missing = [f for f in ("warning", "verdict", "reason") if not entry.get(f)]
        if missing:
            raise VerdictFileError(f"entry {index + 1}: missing {', '.join(missing)}")
        unknown = sorted(set(entry) - {"warning", "verdict", "reason"})
        if unknown:
            raise VerdictFileError(f"entry {index + 1}: unknown key {', '.join(unknown)}")
        if entry["verdict"] not in WARNING_VERDICTS:
            raise VerdictFileError(
                f"entry {index + 1}: verdict {entry['verdict']!r} of a warning is not one of "
                f"{', '.join(WARNING_VERDICTS)}"
            )
        if entry["warning"] in found:
            raise VerdictFileError(f"entry {index + 1}: judged twice: {entry['warning']}")
        found[str(entry["warning"])] = Verdict(str(entry["verdict"]), str(entry["reason"]))
    return found


def _entries(text: str) -> list[tuple[int, dict[str, Any]]]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise VerdictFileError(f"not YAML: {exc}") from None
    if data is None:
        return []
    if not isinstance(data, list):
        raise VerdictFileError("expected a list of verdicts")
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise VerdictFileError(f"entry {index + 1}: expected a mapping")
    return list(enumerate(data))


def parse_verdicts(text: str) -> dict[tuple[str, str, str, str], Verdict]:
    """The verdict file's entries by block key; VerdictFileError names the bad entry."""
    found: dict[tuple[str, str, str, str], Verdict] = {}
    fields = ("library", "pair", "check", "finding", "verdict", "reason")
    for index, entry in _entries(text):
        if "warning" in entry:
            continue  # a warning kind's judgement (``parse_warning_verdicts``)
        missing = [f for f in fields if not isinstance(entry.get(f), str) or not entry[f]]
        # YAML reads a bare `true`/`false` as a boolean: accept it as the word.
        if isinstance(entry.get("verdict"), bool):
            entry = {**entry, "verdict": str(entry["verdict"]).lower()}
            missing = [f for f in missing if f != "verdict"]
        if missing:
            raise VerdictFileError(f"entry {index + 1}: missing {', '.join(missing)}")
        unknown = sorted(set(entry) - set(fields))
        if unknown:
            raise VerdictFileError(f"entry {index + 1}: unknown key {', '.join(unknown)}")
        if entry["verdict"] not in VERDICTS:
            raise VerdictFileError(
                f"entry {index + 1}: verdict {entry['verdict']!r} is not one of "
                f"{', '.join(VERDICTS)}"
            )
        key = Block(entry["library"], entry["pair"], entry["check"], entry["finding"]).key
        if key in found:
            raise VerdictFileError(f"entry {index + 1}: judged twice: {' / '.join(key)}")
        found[key] = Verdict(entry["verdict"], entry["reason"])
    return found


def tally(blocks: Iterable[Block], verdicts: Mapping[tuple[str, str, str, str], Verdict]) -> Tally:
    counted = sorted(set(blocks))
    judged = [verdicts[b.key].verdict for b in counted if b.key in verdicts]
    return Tally(
        blocks=len(counted),
        false=judged.count("false"),
        true=judged.count("true"),
        intended=judged.count("intended"),
        unjudged=tuple(b for b in counted if b.key not in verdicts),
    )


def median_seconds(durations: Sequence[float]) -> float:
    return statistics.median(durations) if durations else 0.0


def unjudged_entries(blocks: Iterable[Block]) -> str:
    """YAML to paste into the verdict file for blocks nobody has judged yet."""
    entries = [
        {**dict(zip(("library", "pair", "check", "finding"), b.key, strict=True)),
         "verdict": "JUDGE: intended | true | false", "reason": "JUDGE: one line, from the diff"}
        for b in blocks
    ]  # fmt: skip
    return yaml.safe_dump(entries, sort_keys=False, width=100)
