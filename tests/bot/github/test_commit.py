"""bot.github.commit: which open pull request's result a shared head shows, and how a pass
into a branch without config is published (issue 34)."""

from __future__ import annotations

import dataclasses

import pytest
from gradgate.bot.github.checkruns import final_check_runs
from gradgate.bot.github.commit import Gate, Origin, severity, worst
from gradgate.bot.github.statuses import final_statuses
from gradgate.bot.plan.plan import ConfigOrigin
from gradgate.bot.report.render import Report
from gradgate.bot.report.verdict import Verdict
from gradgate.checks.base import Outcome

from tests.bot.github.reports import finding, report


def _without_config(r: Report) -> Report:
    assert r.plan is not None
    return dataclasses.replace(r, plan=dataclasses.replace(r.plan, config_origin=ConfigOrigin.HEAD))


PASS = report()
FAIL = report(finding(1))
ERROR = dataclasses.replace(report(outcome=Outcome.ERROR), verdict=Verdict.ERROR)
PENDING = dataclasses.replace(report(outcome=Outcome.WAITING), verdict=Verdict.PENDING)
NOT_GATED = _without_config(PASS)


@pytest.mark.parametrize(
    ("more", "less"),
    [(FAIL, ERROR), (ERROR, PENDING), (PENDING, NOT_GATED), (NOT_GATED, PASS),
     (_without_config(FAIL), PENDING)],  # a finding without config is still a failure
)  # fmt: skip
def test_severity_orders_what_a_commit_may_show(more: Report, less: Report) -> None:
    assert severity(more) > severity(less)


@pytest.mark.parametrize("order", [(7, 8), (8, 7)])
def test_the_worst_gate_is_shown_whichever_order_they_come_in(order: tuple[int, int]) -> None:
    gates = {7: Gate(7, "main", FAIL), 8: Gate(8, "gh-pages", NOT_GATED)}
    assert worst([gates[n] for n in order]).number == 7


def test_of_equal_gates_the_lowest_number_is_shown() -> None:
    assert worst([Gate(9, "dev", FAIL), Gate(3, "main", FAIL)]).number == 3


def test_a_pass_without_a_base_config_never_reads_as_success() -> None:
    origin = Origin(8, "gh-pages")
    statuses = {s.context: s for s in final_statuses(NOT_GATED, target_url=None, origin=origin)}
    runs = {r.name: r for r in final_check_runs(NOT_GATED, details_url=None, origin=origin)}

    assert {s.state for s in statuses.values()} == {"pending"}
    assert statuses["gradgate"].description.startswith("not gated here: gh-pages has no")
    assert {r.conclusion for r in runs.values()} == {"neutral"}
    assert "Not gated here" in runs["gradgate"].summary


def test_a_shared_head_names_the_pr_and_base_its_verdict_came_from() -> None:
    origin = Origin(7, "main", weighed=2)
    statuses = {s.context: s for s in final_statuses(FAIL, target_url=None, origin=origin)}
    runs = {r.name: r for r in final_check_runs(FAIL, details_url=None, origin=origin)}

    for said in (statuses["gradgate"].description, runs["gradgate/protected"].title):
        assert said.startswith("#7 into main (worst of 2 open PRs): ")
    assert len(statuses["gradgate"].description) <= 140
    assert "which is #7's into `main`" in runs["gradgate"].summary
    alone = final_statuses(FAIL, target_url=None, origin=Origin(7, "main"))
    assert not any(s.description.startswith("#") for s in alone)  # one PR: nothing to name
