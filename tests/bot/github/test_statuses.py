"""bot.github.statuses and bot.github.matrix: what a required status and a job matrix show."""

from __future__ import annotations

import dataclasses
import json

import pytest
from gradgate.bot.config.model import Config, load_config
from gradgate.bot.github.matrix import github_matrix
from gradgate.bot.github.ports import Status
from gradgate.bot.github.statuses import _status, final_statuses, fit, pending_statuses
from gradgate.bot.plan.plan import ConfigOrigin, make_plan
from gradgate.bot.report.render import STATUS_LIMIT
from gradgate.checks import REGISTRY
from gradgate.checks.base import Outcome

from tests.bot.github.reports import BASE, finding, plan, report

URL = "https://github.com/acme/model/actions/runs/1"


def test_pending_covers_every_check_skipped_ones_already_succeed() -> None:
    statuses = pending_statuses(plan(), base_sha=BASE, config_hash="abc123def456", target_url=URL)

    by_context = {s.context: s for s in statuses}
    assert set(by_context) == {"gradgate", *(f"gradgate/{name}" for name in REGISTRY)}
    assert by_context["gradgate"].state == "pending"
    assert by_context["gradgate"].description.startswith("running 1 check…")
    assert by_context["gradgate/protected"].state == "pending"
    skipped = by_context["gradgate/gradient"]
    assert skipped.state == "success" and skipped.description.startswith("skipped: ")
    assert all(s.target_url == URL for s in statuses)


def test_final_statuses_carry_the_verdict_and_the_base_and_config_they_were_computed_for() -> None:
    statuses = {s.context: s for s in final_statuses(report(finding(1)), target_url=URL)}

    overall = statuses["gradgate"]
    assert overall.state == "failure"
    assert overall.description.endswith(" · base 1111111 · config abc123def456")
    assert statuses["gradgate/protected"].state == "failure"
    assert statuses["gradgate/checkpoint"].state == "success"  # skipped, with the reason


def test_a_check_that_errored_never_reports_success() -> None:
    errored = report(outcome=Outcome.ERROR)

    statuses = {s.context: s for s in final_statuses(errored, target_url=None)}

    assert statuses["gradgate"].state == "error"
    assert statuses["gradgate/protected"].state == "error"


def test_every_description_fits_140_characters_with_its_stamp() -> None:
    long = report(*(finding(i) for i in range(1, 3)))
    statuses = final_statuses(long, target_url=None) + pending_statuses(
        plan(*(f"models/{'very_long_name_' * 8}{i}.py" for i in range(30))),
        base_sha=BASE,
        config_hash="abc123def456",
        target_url=None,
    )

    assert all(len(s.description) <= STATUS_LIMIT for s in statuses)
    assert any(s.description.endswith("… · base 1111111 · config abc123def456") for s in statuses)


def test_fit_shortens_the_description_not_the_stamp() -> None:
    assert fit("short", " · x") == "short · x"
    fitted = fit("w" * 200, " · base 1234567 · config none")
    assert len(fitted) == STATUS_LIMIT and fitted.endswith("w… · base 1234567 · config none")


def test_status_values_are_githubs_states() -> None:
    for s in final_statuses(report(finding(1)), target_url=None):
        assert isinstance(s, Status) and s.state in {"success", "failure", "error", "pending"}


def _matrix(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines())


def test_the_matrix_puts_each_check_on_its_runners() -> None:
    config = load_config(
        "zones:\n  - name: m\n    paths: ['models/**']\n    checks: [protected]\n"
        "runners:\n  default: [ubuntu-24.04]\n  protected: [self-hosted, linux, gpu]\n"
    )
    planned = make_plan(config, ["models/a.py"], changed_files=1, config_origin=ConfigOrigin.BASE)

    outputs = _matrix(github_matrix(planned, config))

    wanted = [{"check": "protected", "runs_on": ["self-hosted", "linux", "gpu"]}]
    assert json.loads(outputs["matrix"]) == {"include": wanted}
    assert outputs["run"] == "true" and outputs["checks"] == "protected"


def test_a_check_this_version_cannot_run_gets_no_job() -> None:
    planned = make_plan(Config(), ["a.py"], changed_files=1, config_origin=ConfigOrigin.DEFAULT)
    protected = planned.checks[0]
    pending = dataclasses.replace(protected, name="not-built-yet", available=False)
    planned = dataclasses.replace(planned, checks=(protected, pending))

    outputs = _matrix(github_matrix(planned, Config()))

    assert [job["check"] for job in json.loads(outputs["matrix"])["include"]] == ["protected"]


def test_nothing_to_run_says_so_so_the_workflow_skips_the_matrix() -> None:
    planned = make_plan(Config(), [], changed_files=0, config_origin=ConfigOrigin.DEFAULT)

    outputs = _matrix(github_matrix(planned, Config()))

    assert outputs == {"matrix": '{"include":[]}', "run": "false", "checks": ""}


def test_the_default_runner_is_githubs_hosted_linux() -> None:
    planned = make_plan(Config(), ["a.py"], changed_files=1, config_origin=ConfigOrigin.DEFAULT)

    include = json.loads(_matrix(github_matrix(planned, Config()))["matrix"])["include"]

    assert include == [{"check": "protected", "runs_on": ["ubuntu-latest"]}]


def test_a_description_that_just_fits_is_kept_whole() -> None:
    stamp = " · base 1234567 · config none"
    exact = "w" * (STATUS_LIMIT - len(stamp))
    assert fit(exact, stamp) == exact + stamp
    assert fit(exact + "w", stamp) == "w" * (len(exact) - 1) + "…" + stamp


def test_a_pass_without_a_base_config_is_pending_on_the_commit_never_success() -> None:
    """GitHub has no neutral status: what the PR's own config passed must not read as a pass."""
    adopting = dataclasses.replace(
        report(), plan=dataclasses.replace(plan(), config_origin=ConfigOrigin.HEAD)
    )
    states = {s.context: s.state for s in final_statuses(adopting, target_url=URL)}
    assert states["gradgate"] == "pending" and "success" not in states.values()


def test_a_state_github_has_no_status_for_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^not a commit status state: 'neutral'$"):
        _status("gradgate", "neutral", "not gated", "", URL)
