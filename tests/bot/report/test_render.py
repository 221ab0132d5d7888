from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, Plan, make_plan
from gradgate.bot.report.render import (
    COMMENT_MARKER,
    STATUS_LIMIT,
    Report,
    render,
    status_descriptions,
)
from gradgate.bot.report.verdict import Verdict, verdict_for
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity, not_available

GOLDEN = Path(__file__).parent / "golden"
BASE = "1111111" + "a" * 33
HEAD = "2222222" + "b" * 33

CONFIG = Config.model_validate(
    {
        "zones": [
            {
                "name": "model-core",
                "paths": ["models/**"],
                "checks": ["protected", "gradient"],
                "owners": ["@ml-core"],
            },
            {"name": "docs", "paths": ["README.md"], "checks": ["config-docs"]},
        ]
    }
)


def plan(*paths: str, origin: ConfigOrigin = ConfigOrigin.BASE) -> Plan:
    return make_plan(CONFIG, paths, changed_files=len(paths), config_origin=origin)


PROTECTED_FAIL = CheckResult(
    check="protected",
    outcome=Outcome.FAIL,
    summary="1 protected line changed",
    duration_s=0.25,
    findings=(
        Finding(
            kind="protected-line-changed",
            severity=Severity.BLOCKING,
            message="`models/io.py:3` is protected by `NO_REFAC` and this PR changes it.",
            file="models/io.py",
            line=3,
            revision="base",
            details='-ROOT = "data/v3"  # NO_REFAC\n+ROOT = "data/v4"  # NO_REFAC',
        ),
        Finding(
            kind="zone-touched",
            severity=Severity.NOTE,
            message="`models/net.py` is in protected zone `model-core`.",
            file="models/net.py",
        ),
    ),
)


def failing_report() -> Report:
    results = (PROTECTED_FAIL, not_available("gradient"))
    return Report(
        verdict=verdict_for(results),
        results=results,
        plan=plan("models/io.py", "models/net.py", ".gradgate.yml"),
        base_sha=BASE,
        head_sha=HEAD,
        base_ref="main",
        head_ref="feature",
        config_hash="abc123def456",
        config_source=".gradgate.yml at base 1111111",
        rerun="pr",
        repo_url="https://github.com/octo/tiny",
    )


def passing_report() -> Report:
    results = (
        CheckResult(
            check="protected",
            outcome=Outcome.PASS,
            summary="no protected line changed (2 checked in 1 file)",
            duration_s=0.04,
        ),
    )
    return Report(
        verdict=verdict_for(results),
        results=results,
        plan=plan("train.py", origin=ConfigOrigin.HEAD),
        base_sha=BASE,
        head_sha=HEAD,
        config_hash="abc123def456",
        config_source=".gradgate.yml at head 2222222",
    )


def error_report() -> Report:
    message = (
        ".gradgate.yml at base 1111111:4: invalid config at `zones[0].pathz`: unknown key `pathz`"
    )
    return Report(
        verdict=verdict_for((), error=message), error=message, base_ref="main", head_ref="HEAD"
    )


CASES = {
    "failure": failing_report,
    "success-adopting": passing_report,
    "config-error": error_report,
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_rendered_report_matches_golden_file(name: str, fmt: str) -> None:
    suffix = "md" if fmt == "markdown" else "txt"
    golden = GOLDEN / f"{name}.{suffix}"
    rendered = render(CASES[name](), fmt)  # type: ignore[arg-type]
    if os.environ.get("GRADGATE_UPDATE_GOLDEN"):
        golden.write_text(rendered, encoding="utf-8")
    assert rendered == golden.read_text(encoding="utf-8"), (
        f"regenerate with GRADGATE_UPDATE_GOLDEN=1 and review {golden}"
    )


def test_markdown_comment_starts_with_the_hidden_marker() -> None:
    for factory in CASES.values():
        assert render(factory(), "markdown").startswith(COMMENT_MARKER)


def test_failure_comment_links_base_findings_to_the_base_sha() -> None:
    body = render(failing_report(), "markdown")
    assert f"(https://github.com/octo/tiny/blob/{BASE}/models/io.py#L3)" in body
    assert "takes effect after merge" in body
    assert "`/recheck`" in body


def test_adopting_pr_says_its_policy_came_from_the_pr_itself() -> None:
    assert "policy came from the change itself" in render(passing_report(), "text")


def test_details_with_backticks_cannot_close_the_code_fence_early() -> None:
    tricky = Finding(kind="k", severity=Severity.BLOCKING, message="m", details="a\n````\nb")
    result = CheckResult(check="protected", outcome=Outcome.FAIL, summary="s", findings=(tricky,))
    body = render(
        Report(verdict=Verdict.FAILURE, results=(result,), plan=plan("models/a.py")), "markdown"
    )
    assert "`````diff" in body


def test_table_cells_escape_pipes_in_paths() -> None:
    body = render(Report(verdict=Verdict.SUCCESS, plan=plan("models/a|b.py")), "markdown")
    assert "models/a\\|b.py" in body


def test_every_status_description_fits_github_limit() -> None:
    long = CheckResult(check="protected", outcome=Outcome.FAIL, summary="x" * 500)
    report = Report(verdict=Verdict.FAILURE, results=(long,), plan=plan("models/a.py"))
    statuses = status_descriptions(report)
    assert statuses["gradgate"][0] == "failure"
    assert statuses["gradgate/protected"] == ("failure", "x" * (STATUS_LIMIT - 1) + "…")
    assert statuses["gradgate/gradient"][0] == "error"  # planned, but no result: never a pass
    assert statuses["gradgate/config-docs"][0] == "success"
    assert all(len(d) <= STATUS_LIMIT for _, d in statuses.values())


def test_error_status_is_never_success() -> None:
    assert status_descriptions(error_report())["gradgate"][0] == "error"


def test_json_report_lists_every_check_with_its_outcome() -> None:
    data = json.loads(render(failing_report(), "json"))
    assert data["verdict"] == "failure"
    outcomes = {c["name"]: c["outcome"] for c in data["checks"]}
    assert outcomes == {
        "protected": "fail",
        "gradient": "unavailable",
        "checkpoint": "skipped",
        "config-docs": "skipped",
        "api-contract": "skipped",
    }
    finding = data["checks"][0]["findings"][0]
    assert (finding["file"], finding["line"], finding["severity"]) == (
        "models/io.py",
        3,
        "blocking",
    )
