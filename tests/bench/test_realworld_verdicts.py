"""The realworld bench's pure parts: block identity, the verdict file, the figure.

The bench itself (bench/realworld.py) is NOT run by the test suite: it needs its own
environment and the package registry, and takes about an hour.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench._realworld_verdicts import (
    Block,
    VerdictFileError,
    blocks_in,
    items_in,
    items_line,
    notes_in,
    parse_verdicts,
    parse_warning_verdicts,
    repeated_notes,
    tally,
    tally_warnings,
    unjudged_entries,
    unjudged_warning_entries,
)

REPORT = {
    "checks": [
        {
            "name": "checkpoint",
            "findings": [
                {"kind": "checkpoint-missing-keys", "severity": "blocking", "file": "m.py"},
                {"kind": "checkpoint-missing-keys", "severity": "blocking", "file": "m.py"},
                {"kind": "checkpoint-new-keys", "severity": "warning", "file": "m.py"},
            ],
        },
        {"name": "gradient", "findings": [{"kind": "gradient-dead", "severity": "blocking"}]},
        {
            "name": "api-contract",
            "outcome": "error",
            "findings": [{"kind": "check-error", "severity": "blocking"}],
        },
    ]
}

VERDICTS = """\
- library: lib
  pair: 1.0..1.1
  check: checkpoint
  finding: checkpoint-missing-keys @ m.py
  verdict: intended
  reason: the release removed the buffer on purpose
- library: lib
  pair: 1.0..1.1
  check: gradient
  finding: gradient-dead @ (no file)
  verdict: false
  reason: the parameter is used only in eval mode
"""


def test_blocks_are_the_distinct_blocking_findings_of_checks_that_ran() -> None:
    assert blocks_in("lib", "1.0..1.1", REPORT) == [
        Block("lib", "1.0..1.1", "checkpoint", "checkpoint-missing-keys @ m.py"),
        Block("lib", "1.0..1.1", "gradient", "gradient-dead @ (no file)"),
    ]


def test_the_figure_counts_false_alarms_among_all_blocks() -> None:
    counted = tally(blocks_in("lib", "1.0..1.1", REPORT), parse_verdicts(VERDICTS))
    assert (counted.blocks, counted.false, counted.intended, counted.unjudged) == (2, 1, 1, ())
    assert counted.figure() == "figure: realworld_false_alarms = 1/2 (target 0) MISSED"


def test_a_block_nobody_judged_is_listed_ready_to_paste_and_misses_the_figure() -> None:
    counted = tally(blocks_in("lib", "1.0..1.2", REPORT), parse_verdicts(VERDICTS))
    assert len(counted.unjudged) == 2
    assert counted.figure().endswith("MISSED")
    assert "pair: 1.0..1.2" in unjudged_entries(counted.unjudged)


def test_a_bare_yaml_boolean_verdict_reads_as_the_word() -> None:
    text = VERDICTS.replace("verdict: false", "verdict: true")
    verdicts = parse_verdicts(text)
    assert {v.verdict for v in verdicts.values()} == {"intended", "true"}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{a: 1}", "expected a list"),
        ("- library: lib\n", "entry 1: missing pair, check, finding, verdict, reason"),
        (VERDICTS.replace("verdict: intended", "verdict: maybe"), "'maybe' is not one of"),
        (VERDICTS + VERDICTS, "entry 3: judged twice"),
        (VERDICTS.replace("  reason: the release", "  why: x\n  reason: the release"),
         "unknown key why"),
    ],
)  # fmt: skip
def test_a_malformed_verdict_file_names_the_entry(text: str, says: str) -> None:
    with pytest.raises(VerdictFileError, match=says):
        parse_verdicts(text)


# --- issue 36: every item counted by kind, every warning kind judged -------------------------

STORED = Path(__file__).with_name("realworld_result.json")  # a pair as the bench keeps it

WARNINGS = """\
- warning: gradient-untested
  verdict: useful
  reason: names the flag that guards the lines
- warning: default-changed
  verdict: noise
  reason: the defaults of a rewritten signature, none of them used
"""


def test_each_pair_counts_its_blocking_warning_and_note_items_by_kind() -> None:
    report = json.loads(STORED.read_text(encoding="utf-8"))["report"]
    items = items_in(report)
    assert items == {
        "blocking": Counter({"gradient-lost-gradient": 1}),  # the errored check: not counted
        "warning": Counter({"default-changed": 2, "gradient-untested": 1}),
        "note": Counter(
            {"gradient-unreachable": 1, "doc-disagreements-before": 1, "signature-reordered": 1}
        ),
    }
    assert items_line(items) == (
        "blocking 1 (gradient-lost-gradient 1); "
        "warning 3 (default-changed 2, gradient-untested 1); "
        "note 3 (doc-disagreements-before 1, gradient-unreachable 1, signature-reordered 1)"
    )


def test_every_warning_kind_is_judged_and_noise_or_too_many_misses_the_figure() -> None:
    items = items_in(json.loads(STORED.read_text(encoding="utf-8"))["report"])
    judged = parse_warning_verdicts(VERDICTS + WARNINGS)
    assert parse_verdicts(VERDICTS + WARNINGS).keys() == parse_verdicts(VERDICTS).keys()
    warned = tally_warnings([items, items_in({"checks": []})], judged)
    assert (warned.warnings, warned.noise, warned.unjudged) == (3, ("default-changed",), ())
    assert warned.figure() == (
        "figure: realworld_warnings_per_pr = 1.50 (target <= 1.0, every kind useful) MISSED"
    )
    unjudged = tally_warnings([items], parse_warning_verdicts(WARNINGS.split("- warning: d")[0]))
    assert unjudged.unjudged == ("default-changed",)
    assert "warning: default-changed" in unjudged_warning_entries(unjudged.unjudged)
    quiet = tally_warnings([items_in({"checks": []})], judged)
    assert quiet.figure().endswith(" ok")


def test_a_warning_verdict_must_say_useful_or_noise() -> None:
    with pytest.raises(VerdictFileError, match="entry 1: verdict 'true' of a warning"):
        parse_warning_verdicts("- warning: x\n  verdict: 'true'\n  reason: r\n")


def _notes(*found: tuple[str, str, str]) -> dict[str, object]:
    findings = [{"kind": k, "severity": "note", "file": f, "message": m} for k, f, m in found]
    return {"checks": [{"name": "config-docs", "outcome": "pass", "findings": findings}]}


def test_a_note_the_previous_pair_gave_about_a_file_this_pair_left_alone_is_repeated() -> None:
    old = "`README.md:368` says `post_emb_norm` is `True` (3 other sources disagree too)."
    moved = "`README.md:371` says `post_emb_norm` is `True` (4 other sources disagree too)."
    first = notes_in(_notes(("doc-value-mismatch", "README.md", old)))
    second = notes_in(
        _notes(("doc-value-mismatch", "README.md", moved), ("zone-touched", "m.py", "m"))
    )
    assert len(repeated_notes(first, second, ["m.py"])) == 1  # the same words, lines moved
    assert repeated_notes(first, second, ["README.md"]) == []  # the pair touched it
    assert repeated_notes(set(), second, []) == []  # the first pair repeats nothing
