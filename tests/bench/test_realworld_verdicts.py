"""The realworld bench's pure parts: block identity, the verdict file, the figure.

The bench itself (bench/realworld.py) is NOT run by the test suite: it needs its own
environment and the package registry, and takes about an hour.
"""

from __future__ import annotations

import pytest

from bench._realworld_verdicts import (
    Block,
    VerdictFileError,
    blocks_in,
    parse_verdicts,
    tally,
    unjudged_entries,
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
