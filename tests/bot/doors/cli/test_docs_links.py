"""The CLI's report links each finding's check page only where gradgate's installed metadata
names its docs (`[project.urls]` Documentation); gradgate names none, so it links none rather
than a path the user's repository does not have (issue 19, point 6)."""

from __future__ import annotations

import pytest
from gradgate.bot.doors.cli.output import docs_url

from tests.bot.doors.cli.test_commands import gate, project  # noqa: F401 (a fixture)
from tests.gitrepo import GitRepo

DOCS = "https://github.com/acme/gradgate/tree/main/docs"


def test_the_docs_url_is_the_metadatas_documentation_entry() -> None:
    assert docs_url([f"Documentation, {DOCS}/", "Source, https://github.com/acme/x"]) == DOCS
    assert docs_url(["Source, https://github.com/acme/x", "Documentation, docs/"]) is None
    assert docs_url([]) is None


def test_a_finding_names_no_page_the_installed_gradgate_does_not_name(
    project: GitRepo,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert docs_url() is None  # pyproject.toml declares no [project.urls]
    project.write("train.py", 'RUNS = "runs/v4"  # NO_REFAC\nEPOCHS = 3\n')
    project.commit("move runs")

    code, out, _ = gate(project, capsys=capsys)

    assert code == 1 and "train.py:1" in out
    assert "docs/checks/" not in out
