"""The perf check's table in the comment and the text report: base, head, ratio, interval,
samples/s, peak memory, and the chart of the top-level modules that slowed."""

from __future__ import annotations

import re
from typing import Any

from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, make_plan
from gradgate.bot.report.render import Report, render
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity

EXTRA: dict[str, Any] = {
    "device": "cpu", "clock": "perf_counter", "memory": "tensor-peak", "step": "sgd",
    "rows": [
        {"measure": "training step", "unit": "ms", "base": 12.0, "head": 41.5, "ratio": 3.46,
         "low": 3.1, "high": 3.9, "verdict": "beyond", "base_rate": 42667.0,
         "head_rate": 12337.0},
        {"measure": "inference", "unit": "ms", "base": 4.0, "head": 4.4, "ratio": 1.1,
         "low": 0.95, "high": 1.3, "verdict": "noisy", "base_rate": None, "head_rate": None},
        {"measure": "peak memory", "unit": "MB", "base": 13.6, "head": 51.4, "ratio": 3.78,
         "low": 3.78, "high": 3.78, "verdict": "beyond", "base_rate": None,
         "head_rate": None},
    ],
    "modules": {"names": ["encoder", "head[0]"], "base_ms": [2.0, 0.0],
                "head_ms": [9.5, 1.25], "y_max": 10.45, "new": ["head[0]"]},
}  # fmt: skip
SLOWER = Finding("perf-slower", Severity.BLOCKING, "training step time at head is 3.46× base")


def perf_report(extra: dict[str, Any] = EXTRA, *, blocking: bool = True) -> Report:
    config = Config.model_validate({"always": ["perf"]})
    plan = make_plan(config, ["model.py"], changed_files=1, config_origin=ConfigOrigin.BASE)
    result = CheckResult(
        check="perf",
        outcome=Outcome.FAIL if blocking else Outcome.PASS,
        summary="slower",
        findings=(SLOWER,) if blocking else (),
        extra=extra,
    )
    return Report(verdict=verdict_for([result]), results=(result,), plan=plan,
                  base_sha="1" * 40, head_sha="2" * 40, rerun="pr")  # fmt: skip


def test_the_comment_shows_each_measure_with_its_ratio_interval_and_verdict() -> None:
    body = render(perf_report(), "markdown")

    assert (
        "| training step | 12 ms<br>42,667 samples/s | 41.5 ms<br>12,337 samples/s | 3.46× "
        "| 3.10–3.90× | **slower** |"
    ) in body
    assert "| inference | 4 ms | 4.4 ms | 1.10× | 0.95–1.30× | too noisy to decide |" in body
    assert "| peak memory | 13.6 MB | 51.4 MB | 3.78× | 3.78–3.78× | **larger** |" in body


def test_the_text_report_lists_each_measure_base_to_head_with_samples_per_second() -> None:
    text = render(perf_report(), "text")

    line = next(line for line in text.splitlines() if line.strip().startswith("training step"))
    assert line.split()[2:] == [
        "12", "ms", "→", "41.5", "ms", "3.46×", "(3.10–3.90×)", "SLOWER",
        "42,667", "→", "12,337", "samples/s",
    ]  # fmt: skip
    lines = text.splitlines()
    at = lines.index("Top-level modules that slowed (forward time per pass):")
    assert [line.split() for line in lines[at + 1 : at + 3]] == [
        ["encoder", "2", "ms", "→", "9.5", "ms"],
        ["head[0]", "new", "→", "1.25", "ms"],
    ]


def test_the_modules_that_slowed_are_a_mermaid_chart_open_when_the_check_blocks() -> None:
    body = render(perf_report(), "markdown")

    chart = re.search(r"<details( open)?><summary>Top-level modules that slowed.*?</details>",
                      body, re.S)  # fmt: skip
    assert chart is not None and chart.group(1) == " open"
    block = chart.group(0)
    assert "```mermaid\nxychart-beta\n" in block
    assert 'x-axis ["encoder", "head_0_"]' in block  # brackets cannot end Mermaid's list
    assert "bar [2.0, 0.0]" in block and "line [9.5, 1.25]" in block
    assert "new at head (no bar): `head[0]`" in block


def test_the_chart_is_collapsed_when_nothing_blocks_and_absent_when_no_module_slowed() -> None:
    collapsed = render(perf_report(blocking=False), "markdown")
    none = render(perf_report({**EXTRA, "modules": None}, blocking=False), "markdown")

    assert "<details><summary>Top-level modules that slowed" in collapsed
    assert "Top-level modules that slowed" not in none
    assert "mermaid" not in none
