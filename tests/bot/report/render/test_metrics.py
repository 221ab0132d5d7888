"""The metrics check's table in the comment and the text report: metric, base, head, rule."""

from __future__ import annotations

from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, make_plan
from gradgate.bot.report.render import Report, render
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Outcome

ROWS = [
    {"metric": "accuracy", "base": 0.861, "head": 0.84, "rule": ">= 0.85", "passed": False,
     "failed_at_base": False},
    {"metric": "latency_ms_p95", "base": 190.0, "head": 187.0, "rule": "<= 200", "passed": True,
     "failed_at_base": False},
    {"metric": "f1", "base": None, "head": 0.7, "rule": None, "passed": None,
     "failed_at_base": False},
]  # fmt: skip


def metrics_report() -> Report:
    config = Config.model_validate({"always": ["metrics"]})
    plan = make_plan(config, ["eval.py"], changed_files=1, config_origin=ConfigOrigin.BASE)
    result = CheckResult(
        check="metrics", outcome=Outcome.FAIL, summary="1 of 2 metric rules fail at head",
        extra={"rows": ROWS},
    )  # fmt: skip
    return Report(verdict=verdict_for([result]), results=(result,), plan=plan,
                  base_sha="1" * 40, head_sha="2" * 40, rerun="pr")  # fmt: skip


def test_the_comment_shows_one_table_row_per_metric_with_its_verdict() -> None:
    body = render(metrics_report(), "markdown")

    assert "| `accuracy` | 0.861 | 0.84 | `>= 0.85` | **fail** |" in body
    assert "| `latency_ms_p95` | 190 | 187 | `<= 200` | pass |" in body
    assert "| `f1` | — | 0.7 | — |  |" in body


def test_the_text_report_lists_each_metric_base_to_head() -> None:
    text = render(metrics_report(), "text")

    line = next(line for line in text.splitlines() if line.strip().startswith("accuracy"))
    assert line.split() == ["accuracy", "0.861", "→", "0.84", ">=", "0.85", "FAIL"]
