"""bot.report.load: report JSON from another process or job, back into a Report."""

from __future__ import annotations

import json

import pytest
from gradgate.bot.doors.cli import main
from gradgate.bot.report.load import plan_from_json, report_from_json
from gradgate.bot.report.render import as_json, render

from tests.gitrepo import GitRepo

POLICY = "zones:\n  - name: t\n    paths: ['train.py']\n    checks: [protected, gradient]\n"


@pytest.fixture
def failing_json(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    repo.write(".gradgate.yml", POLICY)
    repo.write("train.py", 'RUNS = "runs/v3"  # NO_REFAC\n')
    repo.commit("base")
    repo.branch("pr")
    repo.write("train.py", 'RUNS = "runs/v4"  # NO_REFAC\n')
    repo.commit("edit")
    main(["check", "--repo", str(repo.root), "--base", "main", "--head", "pr", "--format", "json"])
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_the_json_of_a_real_run_comes_back_whole(failing_json: dict[str, object]) -> None:
    report = report_from_json(failing_json)

    assert as_json(report) == failing_json
    assert report.verdict == "failure"
    assert "train.py:1" in render(report, "markdown")


def test_a_plan_comes_back_whole(failing_json: dict[str, object]) -> None:
    plan = failing_json["plan"]

    assert plan_from_json(plan).as_json() == plan


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d.update(verdict="passed"), "verdict"),
        (lambda d: d["checks"][0].update(outcome="fine"), "checks.0.outcome"),
        (
            lambda d: d["checks"][0]["findings"][0].update(severity="fatal"),
            "checks.0.findings.0.severity",
        ),
        (lambda d: d["plan"].pop("checks"), "plan.checks"),
    ],
)
def test_malformed_json_names_the_first_problem(
    failing_json: dict[str, object], change: object, where: str
) -> None:
    change(failing_json)  # type: ignore[operator]

    with pytest.raises(ValueError, match=rf"^{where}: "):
        report_from_json(failing_json)


def test_the_json_says_which_lines_changed_and_where_a_base_finding_is_at_head(
    failing_json: dict[str, object],
) -> None:
    report = report_from_json(failing_json)

    assert report.diff_lines is not None
    assert report.diff_lines.changed("train.py", 1, "RIGHT")
    assert report.diff_lines.changed("train.py", 1, "LEFT")
    (finding,) = report.results[0].findings
    assert (finding.revision, finding.head_file, finding.head_line) == ("base", "train.py", 1)


def test_a_suggestion_stays_a_suggestion_through_json() -> None:
    from tests.bot.report.test_suggestion import report as suggested

    (finding,) = report_from_json(as_json(suggested())).results[0].findings

    assert finding.details_lang == "suggestion"


def test_json_from_before_diff_lines_still_loads(failing_json: dict[str, object]) -> None:
    del failing_json["diff_lines"]

    assert report_from_json(failing_json).diff_lines is None
