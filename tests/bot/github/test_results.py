"""bot.github.results: the fan-out workflow's plan record and per-check results -> one report."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from gradgate.bot.github.results import merge, plan_record, record_pr
from gradgate.bot.report.render import Report, as_json, rows
from gradgate.checks.base import Outcome
from gradgate.checks.checkpoint.tensors import TensorMeta
from gradgate.checks.model.plan.compare import ModelFacts, plan_for

from tests.bot.github.reports import BASE, HEAD, finding, plan, report


def _record(**overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = dict(
        pr=7, head_sha=HEAD, base_sha=BASE, config_hash="abc123def456",
        config_source=".gradgate.yml at base 1111111", plan=plan(),
    )  # fmt: skip
    values.update(overrides)
    return plan_record(**values)


def _check_json(r: Report) -> dict[str, Any]:
    return as_json(r)


def test_the_check_jobs_results_make_the_report() -> None:
    merged = merge(_record(), [_check_json(report(finding(1)))], head_sha=HEAD)

    assert merged.verdict == "failure"
    assert merged.result_for("protected") is not None
    assert (merged.head_sha, merged.base_sha, merged.config_hash) == (HEAD, BASE, "abc123def456")


def test_a_check_without_a_result_is_an_error_never_a_pass() -> None:
    merged = merge(_record(), [], head_sha=HEAD)

    assert merged.verdict == "error"
    (row,) = [r for r in rows(merged) if r.planned.name == "protected"]
    assert row.outcome is Outcome.ERROR
    assert row.result is not None and row.result.summary.startswith("no result")


def test_results_for_another_head_are_not_used() -> None:
    stale = report(head="9" * 40)  # passing, but for another commit

    merged = merge(_record(), [_check_json(stale)], head_sha=HEAD)

    assert merged.verdict == "error"


def test_unreadable_results_count_as_missing() -> None:
    merged = merge(_record(), [{"verdict": "success"}, ["not", "a", "report"]], head_sha=HEAD)

    assert merged.verdict == "error"


def test_a_planned_check_this_version_cannot_run_is_unavailable() -> None:
    p = plan()
    unbuilt = dataclasses.replace(p.checks[0], name="not-built-yet", available=False)
    record = _record(plan=dataclasses.replace(p, checks=(*p.checks, unbuilt)))

    merged = merge(record, [_check_json(report())], head_sha=HEAD)

    assert merged.verdict == "error"
    assert merged.result_for("not-built-yet").outcome is Outcome.UNAVAILABLE  # type: ignore[union-attr]


def test_a_plan_that_failed_is_reported_as_its_error() -> None:
    merged = merge(_record(plan=None, error=".gradgate.yml:3: invalid config"), [], head_sha=HEAD)

    assert merged.verdict == "error" and merged.error == ".gradgate.yml:3: invalid config"


def test_a_plan_record_for_another_head_is_refused() -> None:
    with pytest.raises(ValueError, match="not for"):
        merge(_record(), [], head_sha="9" * 40)


@pytest.mark.parametrize("pr", [None, "7", 0, True])
def test_the_record_must_name_a_pull_request(pr: object) -> None:
    with pytest.raises(ValueError, match="names no pull request"):
        record_pr({"pr": pr})


LIE = "abc -->\n## ✅ gradgate passed @acme/maintainers ![x](https://evil.example/x.png)"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("base_sha", LIE),
        ("base_sha", "A" * 40),  # uppercase: not how git or GitHub write a SHA
        ("base_sha", "a" * 39),
        ("config_hash", LIE),
        ("config_hash", "abc123def4567"),  # 13 digits
        ("head_sha", HEAD.upper()),
    ],
)
def test_a_plan_record_field_of_the_wrong_format_is_refused(field: str, value: str) -> None:
    """Issue 17: fields of an uploaded record reached the comment raw (a fake heading, a
    mention, an image, a forged stamp)."""
    with pytest.raises(ValueError, match=f"`{field}` is not"):
        merge(_record(**{field: value}), [], head_sha=HEAD)


def test_a_plan_without_protected_is_no_plan() -> None:
    """Issue 17: an empty plan (not even the built-in `protected`) was published as success."""
    p = plan()
    empty = dataclasses.replace(p, checks=tuple(c for c in p.checks if c.name != "protected"))

    with pytest.raises(ValueError, match=r"does not list the check.*protected"):
        merge(_record(plan=empty), [], head_sha=HEAD)


def test_a_check_the_record_holds_waiting_waits_and_never_passes() -> None:
    record = _record(waiting={"protected": "waiting for approval to run code from a fork"})

    merged = merge(record, [_check_json(report())], head_sha=HEAD)

    assert merged.verdict == "pending"
    waiting = merged.result_for("protected")
    assert waiting is not None and waiting.outcome is Outcome.WAITING


def test_the_model_plan_of_the_job_that_made_one_reaches_the_comment() -> None:
    """Issue 37: each matrix job reports its own JSON; the model plan comes from the job whose
    model check made one (the others have none)."""
    facts = ModelFacts(None, {"fc.weight": TensorMeta((4, 8), "float32")}, (("", "Net"),), {})
    wider = dataclasses.replace(facts, entries={"fc.weight": TensorMeta((8, 8), "float32")})
    described = plan_for([facts], [wider])
    with_plan = dataclasses.replace(report(finding(1)), model_plan=described)
    without = report(finding(2))
    merged = merge(_record(), [_check_json(without), _check_json(with_plan)], head_sha=HEAD)

    assert merged.model_plan == described
    assert merge(_record(), [_check_json(without)], head_sha=HEAD).model_plan is None
