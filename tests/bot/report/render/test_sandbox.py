"""The report says how model code was isolated: process-level only is never silent."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, make_plan
from gradgate.bot.report.render import Report, render, status_descriptions
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Outcome
from gradgate.checks.sandbox.isolation import Isolation, weakest

GOLDEN = Path(__file__).parent / "golden"
WEAK = Isolation("process", reason="`bwrap` is not installed", memory="process", network=True,
                 disk="watched", disk_mb=2048)  # fmt: skip
STRONG = Isolation("bubblewrap", memory="run", processes="run", network=False, contained=True,
                   cgroup=2, disk="tmpfs", disk_mb=2048)  # fmt: skip


def sandboxed_report() -> Report:
    config = Config.model_validate({"always": ["protected", "gradient", "checkpoint"]})
    plan = make_plan(config, ["model.py"], changed_files=1, config_origin=ConfigOrigin.BASE)
    results = (
        CheckResult(check="protected", outcome=Outcome.PASS, summary="no protected line changed"),
        CheckResult(check="gradient", outcome=Outcome.PASS, summary="12 parameters learn",
                    duration_s=3.2, isolation=WEAK),
        CheckResult(check="checkpoint", outcome=Outcome.PASS, summary="base checkpoints load",
                    duration_s=5.0, isolation=STRONG),
    )  # fmt: skip
    return Report(
        verdict=verdict_for(results),
        results=results,
        plan=plan,
        base_sha="1" * 40,
        head_sha="2" * 40,
        config_hash="abc123def456",
        config_source=".gradgate.yml at base 1111111",
        rerun="pr",
    )


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_sandboxed_report_matches_golden_file(fmt: str) -> None:
    golden = GOLDEN / ("sandbox.md" if fmt == "markdown" else "sandbox.txt")
    rendered = render(sandboxed_report(), fmt)  # type: ignore[arg-type]
    if os.environ.get("GRADGATE_UPDATE_GOLDEN"):
        golden.write_text(rendered, encoding="utf-8")
    assert rendered == golden.read_text(encoding="utf-8"), (
        f"regenerate with GRADGATE_UPDATE_GOLDEN=1 and review {golden}"
    )


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_process_level_only_is_said_for_the_check_that_ran_so(fmt: str) -> None:
    lines = render(sandboxed_report(), fmt).splitlines()  # type: ignore[arg-type]
    weak = [line for line in lines if "sandbox: process-level only — install bubblewrap" in line]
    assert len(weak) == 1
    assert "gradient" in weak[0] or fmt == "text"
    assert any("sandbox: bubblewrap, no network" in line for line in lines)


def test_statuses_stay_within_githubs_limit_with_isolation() -> None:
    for _state, description in status_descriptions(sandboxed_report()).values():
        assert len(description) <= 140


def test_a_checks_isolation_is_its_weakest_runs() -> None:
    assert weakest([STRONG, WEAK, STRONG]) == WEAK
    assert weakest([STRONG, Isolation("bubblewrap", network=True, contained=True)]).network
    assert weakest([]) is None


def test_isolation_survives_the_json_the_action_reads_back() -> None:
    # The Action runs the checks in a child and renders its JSON: the warning must survive.
    from gradgate.bot.report.load import report_from_json
    from gradgate.bot.report.render import as_json

    report = sandboxed_report()
    back = report_from_json(json.loads(json.dumps(as_json(report))))
    assert {r.check: r.isolation for r in back.results} == {
        "protected": None, "gradient": WEAK, "checkpoint": STRONG,
    }  # fmt: skip
    again = dataclasses.replace(back, rerun=report.rerun)  # the door's to say, not the JSON's
    assert render(again, "markdown") == render(report, "markdown")
