"""A finding whose fix is one line carries it as a GitHub suggestion block in the comment."""

from __future__ import annotations

import json

from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, make_plan
from gradgate.bot.report.render import Report, render
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity

SUGGESTED = Finding(
    kind="doc-value-mismatch",
    severity=Severity.BLOCKING,
    message="`README.md:15` (table) says `batch_size` is `32`, but `configs/train.yaml:1` "
    "(config) now sets it to `64`.",
    file="README.md",
    line=15,
    details="| `batch_size` | 64 | images per step |",
    revision="head",
    details_lang="suggestion",
)


def report() -> Report:
    results = (
        CheckResult(
            check="config-docs", outcome=Outcome.FAIL, summary="1 new", findings=(SUGGESTED,)
        ),
    )
    config = Config.model_validate(
        {"zones": [{"name": "docs", "paths": ["README.md"], "checks": ["config-docs"]}]}
    )
    plan = make_plan(config, ["README.md"], changed_files=1, config_origin=ConfigOrigin.BASE)
    return Report(verdict=verdict_for(results), results=results, plan=plan)


def test_markdown_fences_a_suggestion_as_one_and_names_it() -> None:
    text = render(report(), "markdown")
    assert "<details><summary>suggested change</summary>" in text
    assert "  ```suggestion\n  | `batch_size` | 64 | images per step |\n  ```" in text
    assert "```diff" not in text


def test_text_and_json_say_it_is_a_suggested_line() -> None:
    assert "      suggested line:\n      | `batch_size` | 64 |" in render(report(), "text")
    rendered = json.loads(render(report(), "json"))
    row = next(row for row in rendered["checks"] if row["name"] == "config-docs")
    assert row["findings"][0]["details_lang"] == "suggestion"
