"""The metrics check on real revisions: a tiny eval committed in a real git repo, run in the
sandbox at base and head, its numbers held to the config's rules."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from gradgate.checks.base import CheckResult, Outcome, Severity
from gradgate.checks.metrics.check import MetricsCheck
from gradgate.checks.metrics.settings import MetricsSettings

from tests.gitrepo import GitRepo

EVAL = """\
def evaluate():
    return {{"accuracy": {accuracy}, "latency_ms_p95": {latency}}}
"""
SCRIPT = """\
import json, os

with open(os.environ["GRADGATE_METRICS_FILE"], "w") as out:
    json.dump({{"accuracy": {accuracy}, "latency_ms_p95": {latency}}}, out)
"""
RULES: dict[str, Any] = {"accuracy": ">= 0.85", "latency_ms_p95": "<= 200"}


def run(
    tmp_path: Path,
    base: str,
    head: str,
    *,
    rules: dict[str, Any] | None = None,
    entrypoint: str = "eval.py:evaluate",
    path: str = "eval.py",
) -> CheckResult:
    settings = MetricsSettings(
        entrypoint=entrypoint, rules=rules or RULES, timeout_s=120.0, memory_mb=2048
    )
    pr = GitRepo(tmp_path).pull_request_context(
        {path: base}, {path: head}, settings, changes=(), python=sys.executable
    )
    with pr as ctx:
        return MetricsCheck().run(ctx)


def table(result: CheckResult) -> list[tuple[str, float | None, float | None, str | None, Any]]:
    rows = result.extra["rows"]
    return [(r["metric"], r["base"], r["head"], r["rule"], r["passed"]) for r in rows]


def test_numbers_within_their_rules_pass_with_the_table(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        EVAL.format(accuracy=0.86, latency=190),
        EVAL.format(accuracy=0.861, latency=187),
    )

    assert result.outcome is Outcome.PASS
    assert table(result) == [
        ("accuracy", 0.86, 0.861, ">= 0.85", True),
        ("latency_ms_p95", 190.0, 187.0, "<= 200", True),
    ]


def test_accuracy_below_the_line_at_head_blocks_naming_the_metric(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        EVAL.format(accuracy=0.86, latency=190),
        EVAL.format(accuracy=0.84, latency=190),
    )

    assert result.outcome is Outcome.FAIL
    (finding,) = result.findings
    assert finding.severity is Severity.BLOCKING
    assert finding.message == "`accuracy` fails its rule `>= 0.85` at head (it held at base)"
    assert table(result)[0] == ("accuracy", 0.86, 0.84, ">= 0.85", False)


def test_a_drop_beyond_max_drop_blocks_and_one_within_it_passes(tmp_path: Path) -> None:
    rules = {"accuracy": {"max_drop": 0.005}}
    dropped = run(
        tmp_path / "a",
        EVAL.format(accuracy=0.9, latency=1),
        EVAL.format(accuracy=0.89, latency=1),
        rules=rules,
    )
    kept = run(
        tmp_path / "b",
        EVAL.format(accuracy=0.9, latency=1),
        EVAL.format(accuracy=0.897, latency=1),
        rules=rules,
    )

    assert dropped.outcome is Outcome.FAIL
    assert table(dropped)[0] == ("accuracy", 0.9, 0.89, "drop ≤ 0.005 vs base", False)
    assert kept.outcome is Outcome.PASS


def test_a_script_that_writes_json_is_judged_like_a_function(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        SCRIPT.format(accuracy=0.86, latency=190),
        SCRIPT.format(accuracy=0.86, latency=250),
        entrypoint="tools/eval_metrics.py",
        path="tools/eval_metrics.py",
    )

    assert result.outcome is Outcome.FAIL
    assert table(result)[1] == ("latency_ms_p95", 190.0, 250.0, "<= 200", False)


def test_a_rule_already_failing_at_base_warns_instead_of_blocking(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        EVAL.format(accuracy=0.80, latency=190),
        EVAL.format(accuracy=0.81, latency=190),
    )

    assert result.outcome is Outcome.WARN
    assert result.findings[0].message == (
        "`accuracy` fails its rule `>= 0.85` at head, as it already did at base"
    )


@pytest.mark.parametrize(
    ("head", "said"),
    [
        (
            'def evaluate():\n    return {"latency_ms_p95": 10}\n',
            "the eval gave no metric `accuracy` at head, which a rule needs",
        ),
        (
            'def evaluate():\n    return {"accuracy": "n/a", "latency_ms_p95": 10}\n',
            "metric `accuracy` at head is not a finite number: 'n/a'",
        ),
        (
            'def evaluate():\n    return {"accuracy": float("nan"), "latency_ms_p95": 10}\n',
            "metric `accuracy` at head is not a finite number: nan",
        ),
        (
            "def evaluate():\n    return [0.9]\n",
            "`eval.py:evaluate` at head: the eval gave list, not a mapping of metric names "
            "to numbers",
        ),
    ],
)
def test_a_missing_or_unusable_metric_is_an_error_naming_it(
    tmp_path: Path, head: str, said: str
) -> None:
    result = run(tmp_path, EVAL.format(accuracy=0.9, latency=10), head)

    assert result.outcome is Outcome.ERROR
    (finding,) = result.findings
    assert (finding.message, finding.revision) == (said, "head")


def test_an_eval_that_raises_at_base_is_an_error_naming_base(tmp_path: Path) -> None:
    raising = "def evaluate():\n    raise RuntimeError('eval set not found')\n"

    result = run(tmp_path, raising, EVAL.format(accuracy=0.9, latency=10))

    assert result.outcome is Outcome.ERROR
    assert result.findings[0].revision == "base"
    assert "eval set not found" in result.summary + (result.findings[0].details or "")
