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
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

VERDICTS = ("intended", "true", "false")


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


def parse_verdicts(text: str) -> dict[tuple[str, str, str, str], Verdict]:
    """The verdict file's entries by block key; VerdictFileError names the bad entry."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise VerdictFileError(f"not YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, list):
        raise VerdictFileError("expected a list of verdicts")
    found: dict[tuple[str, str, str, str], Verdict] = {}
    fields = ("library", "pair", "check", "finding", "verdict", "reason")
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise VerdictFileError(f"entry {index + 1}: expected a mapping")
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
