"""The perf check's table in the comment and the text report: base, head, ratio, interval."""

from __future__ import annotations

from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, make_plan
from gradgate.bot.report.render import Report, render
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Outcome

EXTRA = {
    "device": "cpu", "clock": "perf_counter",
    "rows": [
        {"measure": "training step", "base_ms": 12.0, "head_ms": 41.5, "ratio": 3.46,
         "low": 3.1, "high": 3.9, "verdict": "slower"},
        {"measure": "inference", "base_ms": 4.0, "head_ms": 4.4, "ratio": 1.1,
         "low": 0.95, "high": 1.3, "verdict": "noisy"},
    ],
}  # fmt: skip


def perf_report() -> Report:
    config = Config.model_validate({"always": ["perf"]})
    plan = make_plan(config, ["model.py"], changed_files=1, config_origin=ConfigOrigin.BASE)
    result = CheckResult(check="perf", outcome=Outcome.FAIL, summary="slower", extra=EXTRA)
    return Report(verdict=verdict_for([result]), results=(result,), plan=plan,
                  base_sha="1" * 40, head_sha="2" * 40, rerun="pr")  # fmt: skip


def test_the_comment_shows_each_measure_with_its_ratio_interval_and_verdict() -> None:
    body = render(perf_report(), "markdown")

    assert "| training step | 12 ms | 41.5 ms | 3.46× | 3.10–3.90× | **slower** |" in body
    assert "| inference | 4 ms | 4.4 ms | 1.10× | 0.95–1.30× | too noisy to decide |" in body


def test_the_text_report_lists_each_measure_base_to_head() -> None:
    text = render(perf_report(), "text")

    line = next(line for line in text.splitlines() if line.strip().startswith("training step"))
    assert line.split()[2:] == ["12", "ms", "→", "41.5", "ms", "3.46×", "(3.10–3.90×)", "SLOWER"]
