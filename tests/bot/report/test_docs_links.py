"""The report's footer links the docs page of each check with a finding (issue 19, point 6):
`docs/checks/<check>.md` under the docs the door knows of; no link when it knows of none."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from gradgate.bot.report.render import render
from gradgate.checks import REGISTRY

from tests.bot.report.render.test_reports import failing_report, passing_report

ROOT = Path(__file__).resolve().parents[3]
DOCS = "https://github.com/acme/gradgate/blob/v1.2.0/docs"


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_a_check_with_a_finding_links_its_page_and_none_without_docs(fmt: str) -> None:
    report = dataclasses.replace(failing_report(), docs_url=DOCS)

    assert f"{DOCS}/checks/protected.md" in render(report, fmt)
    assert "checks/gradient.md" not in render(report, fmt)  # no finding of its own
    assert "checks/" not in render(dataclasses.replace(report, docs_url=None), fmt)
    assert "checks/" not in render(dataclasses.replace(passing_report(), docs_url=DOCS), fmt)


def test_every_check_has_the_page_the_footer_links() -> None:
    missing = [name for name in REGISTRY if not (ROOT / "docs" / "checks" / f"{name}.md").exists()]
    assert missing == []
