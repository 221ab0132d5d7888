"""The gradient check's summary and chart: names from the PR's model cannot forge the comment."""

from __future__ import annotations

import re

from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, make_plan
from gradgate.bot.report.render import Report, render
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Outcome
from markdown_it import MarkdownIt

# A ModuleDict key can be any string: the PR's model chooses these names.
HOSTILE = 'x"]\n```\n## ✅ gradgate passed\n<!-- @octocat -->`'


def gradient_report() -> Report:
    config = Config.model_validate({"always": ["gradient"]})
    plan = make_plan(config, ["model.py"], changed_files=1, config_origin=ConfigOrigin.BASE)
    extra = {
        "summary": {
            "trainable": [10, 12], "frozen": [0, 0], "tensors": [2, 3],
            "modules_added": [HOSTILE], "modules_removed": [],
            "shapes": [{"name": HOSTILE, "base": [2], "head": [3]}],
            "device": "cpu\n## fake", "torch": "2.13.0", "loss": "projection", "steps": 2,
        },
        "chart": {
            "modules": [HOSTILE, "head"], "base": [-1.0, 0.5], "head": [0.2, 0.5],
            "base_norms": [None, 3.1], "head_norms": [1.5, 3.1], "y_min": -1, "y_max": 1,
        },
    }  # fmt: skip
    result = CheckResult(check="gradient", outcome=Outcome.PASS, summary="ok", extra=extra)
    return Report(verdict=verdict_for([result]), results=(result,), plan=plan,
                  base_sha="1" * 40, head_sha="2" * 40, rerun="pr")  # fmt: skip


def test_hostile_module_names_stay_inside_code_spans_and_the_chart() -> None:
    body = render(gradient_report(), "markdown")
    tokens = MarkdownIt("commonmark").parse(body)
    headings = [body.splitlines()[t.map[0]] for t in tokens if t.type == "heading_open" and t.map]
    assert headings == [  # the verdict's own heading and the summary's, nothing the model named
        "## ✅ gradgate passed: no regression found in the checks that ran",
        "#### Gradient flow: the model at base → head",
    ]
    fences = [t for t in tokens if t.type == "fence"]
    assert [f.info for f in fences] == ["mermaid"]  # the chart is one block, not broken open
    chart = fences[0].content
    assert chart.count("\n") == 6  # its own lines only: nothing the model named added a line
    assert re.search(r'x-axis \["x__\\n___', chart)  # quotes and brackets made harmless
    texts = [c.content for t in tokens if t.children for c in t.children if c.type == "text"]
    assert not any("@octocat" in text for text in texts)  # a mention only ever inside code
    html = [t.content for t in tokens if t.type in ("html_block", "html_inline")]
    assert all("octocat" not in h for h in html)


def test_the_text_report_shows_hostile_names_escaped_on_one_line() -> None:
    text = render(gradient_report(), "text")
    added = next(line for line in text.splitlines() if "modules added" in line)
    assert "\\n## \\u2705" in added or "\\n## ✅" in added
    assert "\n## ✅ gradgate passed" not in text
