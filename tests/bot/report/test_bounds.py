"""Reports cannot be forged or blown up: every value escaped for its format, every list bounded."""

from __future__ import annotations

import re

from gradgate.bot.report.render import BODY_LIMIT, Report, render, status_descriptions
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity
from markdown_it import MarkdownIt

from tests.bot.report.render.test_reports import BASE, HEAD, plan

EVIL = "models/a`b\n## ✅ gradgate passed\n<!-- x --></details>@octocat \x1b[31mred\u202e.py"


def evil_report() -> Report:
    finding = Finding(
        kind="protected-line-changed",
        severity=Severity.BLOCKING,
        message=f"``{EVIL}:3`` is protected by `NO_REFAC` and this PR changes it.",
        file=EVIL,
        line=3,
        details=f"-x = 1\n+x = 2  # {EVIL}\n```\n</details>",
        revision="base",
    )
    results = (CheckResult("protected", Outcome.FAIL, f"changed {EVIL}", (finding,)),)
    return Report(
        verdict=verdict_for(results),
        results=results,
        plan=plan(EVIL, "models/ok.py"),
        base_sha=BASE,
        head_sha=HEAD,
        base_ref="main",
        head_ref="feature\n## ✅ gradgate passed",
        config_source=f".gradgate.yml at base {EVIL}",
        repo_url="https://github.com/octo/tiny",
    )


def structure(body: str) -> tuple[list[str], list[str], str]:
    """The headings, the raw HTML and the text outside code a markdown renderer finds."""
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(body)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    inline = [c for t in tokens for c in t.children or ()]
    html = [t.content.strip() for t in tokens if t.type == "html_block"]
    html += [c.content for c in inline if c.type == "html_inline"]
    return headings, html, " ".join(c.content for c in inline if c.type == "text")


def test_a_hostile_file_name_cannot_forge_structure_in_the_markdown_report() -> None:
    body = render(evil_report(), "markdown")

    headings, html, text = structure(body)
    assert headings == ["❌ gradgate failed: this change introduces a regression", "Findings"]
    assert [h for h in html if "<!--" in h] == ["<!-- gradgate:report -->"]
    assert sum(h.count("<details>") for h in html) == sum(h.count("</details>") for h in html)
    assert "@octocat" not in text and "@\u200boctocat" in text  # no mention outside code
    assert "\x1b" not in body and "\\x1b[31m" in body
    assert "\u202e" not in body and "\\u202e" in body
    # The path is one code span: its backtick needs a longer fence around it.
    assert "``models/a`b\\n## ✅ gradgate passed\\n<!-- x --></details>@octocat" in body
    assert "(https://github.com/octo/tiny/blob/" + BASE + "/models/a%60b%0A%23%23" in body


def test_a_hostile_file_name_is_shown_escaped_in_text_and_statuses() -> None:
    text = render(evil_report(), "text")
    assert "\x1b" not in text and "\\x1b[31mred\\u202e.py" in text
    assert "a`b\\n## ✅ gradgate passed\\n" in text
    assert not any(line.startswith("## ") for line in text.splitlines())
    for _, description in status_descriptions(evil_report()).values():
        assert "\n" not in description and "\x1b" not in description


def test_a_file_name_that_is_not_utf8_is_shown_as_its_bytes() -> None:
    odd = "caf\udce9.py"  # b"caf\xe9.py" read with surrogateescape
    finding = Finding("k", Severity.BLOCKING, "m", odd)
    result = CheckResult("protected", Outcome.FAIL, "s", (finding,))
    report = Report(verdict=verdict_for((result,)), results=(result,), plan=plan(odd))
    for fmt in ("markdown", "text"):
        out = render(report, fmt)  # type: ignore[arg-type]
        out.encode("utf-8")  # printable: no lone surrogate left
        assert "caf\\xe9.py" in out


def many_findings(count: int) -> Report:
    found = tuple(
        Finding(
            kind="protected-line-changed" if i % 3 else "zone-touched",
            severity=Severity.BLOCKING if i % 3 else Severity.NOTE,
            message=f"`models/m{i}.py:{i}` is protected by `NO_REFAC` and this PR changes it. "
            + "x" * 200,
            file=f"models/m{i}.py",
            line=i,
            details="\n".join(f"-line {k} " + "y" * 100 for k in range(40)),
        )
        for i in range(count)
    )
    results = (CheckResult("protected", Outcome.FAIL, f"{count} changed", found),)
    return Report(verdict=verdict_for(results), results=results, plan=plan("models/a.py"))


def test_thousands_of_findings_fit_one_github_comment_with_the_failures_on_top() -> None:
    body = render(many_findings(3_000), "markdown")

    assert len(body) <= BODY_LIMIT
    assert body.splitlines()[1] == "## ❌ gradgate failed: this change introduces a regression"
    shown = re.findall(r"^- \*\*(\w+)\*\*", body, flags=re.MULTILINE)
    assert shown and set(shown) == {"blocking"}  # the most severe first
    assert (
        f"{3_000 - len(shown):,} more findings not shown: "
        f"{2_000 - len(shown):,} `protected-line-changed` (blocking, protected), "
        "1,000 `zone-touched` (note, protected)."
    ) in body


def test_the_text_report_lists_the_first_findings_and_counts_the_rest() -> None:
    text = render(many_findings(3_000), "text")

    assert text.count("[blocking]") == 200
    hidden = "2,800 more findings not shown: 1,800 `protected-line-changed` (blocking, protected)"
    assert hidden in text


def test_long_lines_and_long_diffs_are_cut_with_a_note() -> None:
    finding = Finding(
        kind="k",
        severity=Severity.BLOCKING,
        message="m" * 100_000,
        file="a.py",
        details="\n".join(f"+{k}" for k in range(10_000)),
    )
    results = (CheckResult("protected", Outcome.FAIL, "s", (finding,)),)
    report = Report(verdict=verdict_for(results), results=results, plan=plan("a.py"))
    body = render(report, "markdown")
    assert len(body) < 20_000
    assert "(99,000 more characters)" in body
    assert "(9,940 more lines)" in body
    text = render(report, "text")
    assert "(98,000 more characters)" in text and "(9,940 more lines)" in text
