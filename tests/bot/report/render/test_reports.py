from __future__ import annotations

import dataclasses
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
    as_json,
    render,
    status_descriptions,
)
from gradgate.bot.report.verdict import Verdict, verdict_for
from gradgate.checks.base import (
    CheckResult,
    Finding,
    Outcome,
    Severity,
    Suppression,
    not_available,
)
from gradgate.checks.checkpoint.tensors import TensorMeta
from gradgate.checks.model.plan.compare import ModelFacts, PlanProblem, plan_for

from tests.checks.model.test_plan import blocks

# GRADGATE_GOLDEN_DIR: another folder of golden files (the test of the update switch uses a copy).
GOLDEN = Path(os.environ.get("GRADGATE_GOLDEN_DIR") or Path(__file__).parent / "golden")
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


def plan(
    *paths: str,
    origin: ConfigOrigin = ConfigOrigin.BASE,
    unmatched: dict[str, tuple[str, ...]] | None = None,
) -> Plan:
    return make_plan(
        CONFIG, paths, changed_files=len(paths), config_origin=origin, unmatched=unmatched
    )


PROTECTED_FAIL = CheckResult(
    check="protected",
    outcome=Outcome.FAIL,
    summary="1 protected line changed",
    duration_s=0.25,
    findings=(
        Finding(
            kind="protected-line-changed",
            severity=Severity.BLOCKING,
            message='`ROOT = "data/v3"` (`models/io.py:3`) is protected by `# NO_REFAC`; this PR '
            "changes it. Revert the change, or remove the protection in a separate reviewed PR "
            "(or ask an owner).",
            file="models/io.py",
            line=3,
            revision="base",
            details='-ROOT = "data/v3"  # NO_REFAC\n+ROOT = "data/v4"  # NO_REFAC',
            head_file="models/io.py",
            head_line=4,
        ),
        Finding(
            kind="zone-touched",
            severity=Severity.NOTE,
            message="`models/net.py` is in protected zone `model-core`; ask an owner (`@ml-core`) "
            "to review.",
            file="models/net.py",
        ),
    ),
)


def failing_report() -> Report:
    results = (PROTECTED_FAIL, not_available("gradient"))
    return Report(
        verdict=verdict_for(results),
        results=results,
        plan=plan(
            "models/io.py",
            "models/net.py",
            ".gradgate.yml",
            unmatched={"docs": ("README.md",)},  # renamed to README.rst, say
        ),
        base_sha=BASE,
        head_sha=HEAD,
        base_ref="main",
        head_ref="feature",
        config_hash="abc123def456",
        config_source=".gradgate.yml at base 1111111",
        rerun="pr",
        repo_url="https://github.com/octo/tiny",
        docs_url="https://github.com/acme/gradgate/blob/v1.2.0/docs",  # the Action's own ref
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
        options=("--repo", "../tiny model", "--only", "protected"),
    )


def error_report() -> Report:
    message = (
        ".gradgate.yml at base 1111111:4: invalid config at `zones[0].pathz`: unknown key `pathz`"
    )
    return Report(
        verdict=verdict_for((), error=message), error=message, base_ref="main", head_ref="HEAD"
    )


LINT_FAIL = CheckResult(
    check="dl-lint",
    outcome=Outcome.FAIL,
    summary="1 finding: 1 `hook-in-forward`",
    duration_s=0.02,
    findings=(
        Finding(
            kind="lint-hook-in-forward",
            severity=Severity.BLOCKING,
            message="`hook-in-forward`: `.register_forward_hook(...)` inside `forward`. Fix: "
            "register it once. Suppressions added in a pull request do not count until merged: "
            "the `# gradgate: ignore` this change adds leaves the finding standing.",
            file="models/net.py",
            line=9,
            details="        self.fc.register_forward_hook(print)  # gradgate: ignore",
            details_lang="text",
        ),
    ),
    suppressions=(
        Suppression("hook-in-forward", "change", "models/net.py", 9),
        Suppression("hook-in-forward", "base", "models/net.py", 5),
        Suppression("load-unsafe", "config", "models/io.py", 3, "we load only our own files"),
    ),
)


def suppressed_report() -> Report:
    """Issue 34: a suppression of each origin, one of them the change's own (not counted)."""
    config = Config.model_validate(
        {"zones": [{"name": "model-core", "paths": ["models/**"], "checks": ["dl-lint"]}]}
    )
    protected = CheckResult(check="protected", outcome=Outcome.PASS, summary="nothing marked")
    results = (protected, LINT_FAIL)
    return Report(
        verdict=verdict_for(results),
        results=results,
        plan=make_plan(
            config, ("models/net.py",), changed_files=1, config_origin=ConfigOrigin.BASE
        ),
        base_sha=BASE,
        head_sha=HEAD,
        config_hash="abc123def456",
        config_source=".gradgate.yml at base 1111111",
        rerun="pr",
        repo_url="https://github.com/octo/tiny",
    )


def _facts(variant: str, layers: dict[str, tuple[str, list[int], str]], flops: int) -> ModelFacts:
    """A variant of a model of Linear layers: name -> (class, weight shape, dtype)."""
    return ModelFacts(
        variant=variant,
        entries={f"{n}.weight": TensorMeta(tuple(s), dtype) for n, (_, s, dtype) in layers.items()},
        modules=(("", "Net"), *((name, kind) for name, (kind, _, _) in layers.items())),
        parameters={name: shape[0] * shape[1] for name, (_, shape, _) in layers.items()},
        flops=flops,
    )


def model_plan_report() -> Report:
    """Issue 37: the model plan of a PR that adds a layer and renames another in one variant,
    and leaves the other variant alone."""
    base = {"encoder": ("Linear", [16, 8], "float32"), "fc": ("Linear", [4, 16], "float32")}
    head = {
        "encoder": ("Linear", [16, 8], "bfloat16"),
        "hidden": ("Linear", [16, 16], "float32"),
        "classifier": ("Linear", [4, 16], "float32"),
    }
    described = plan_for(
        [_facts("default", base, 1152), _facts("eager", base, 1152)],
        [_facts("default", head, 2688), _facts("eager", base, 1152)],
    )
    results = (
        CheckResult(check="protected", outcome=Outcome.PASS, summary="nothing marked"),
        CheckResult(
            check="gradient",
            outcome=Outcome.PASS,
            summary="every parameter that learned at base still learns (3 parameter tensors "
            "on cpu, 2 variants)",
            duration_s=2.5,
        ),
    )
    return Report(
        verdict=verdict_for(results),
        results=results,
        plan=plan("models/net.py"),
        base_sha=BASE,
        head_sha=HEAD,
        config_hash="abc123def456",
        config_source=".gradgate.yml at base 1111111",
        rerun="pr",
        repo_url="https://github.com/octo/tiny",
        model_plan=described,
    )


CASES = {
    "failure": failing_report,
    "model-plan": model_plan_report,
    "suppressed": suppressed_report,
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
        changed = not golden.exists() or golden.read_text(encoding="utf-8") != rendered
        golden.write_text(rendered, encoding="utf-8")
        # Fail anyway, so a regenerated golden file is always looked at before it passes.
        pytest.fail(
            f"GRADGATE_UPDATE_GOLDEN is set: rewrote {golden.name} "
            f"({'changed' if changed else 'unchanged'}); review `git diff {golden}`, "
            "then run the tests without it"
        )
    assert rendered == golden.read_text(encoding="utf-8"), (
        f"regenerate with GRADGATE_UPDATE_GOLDEN=1 and review {golden}"
    )


def test_markdown_comment_starts_with_the_hidden_marker() -> None:
    for factory in CASES.values():
        assert render(factory(), "markdown").startswith(COMMENT_MARKER)


def test_a_statement_at_the_same_place_on_both_sides_is_one_label_linked_to_each_sha() -> None:
    same = dataclasses.replace(PROTECTED_FAIL.findings[0], head_line=3)
    result = dataclasses.replace(PROTECTED_FAIL, findings=(same,))
    report = dataclasses.replace(failing_report(), results=(result,))
    body = render(report, "markdown")
    assert (
        f"`models/io.py:3` ([base](https://github.com/octo/tiny/blob/{BASE}/models/io.py#L3) and "
        f"[head](https://github.com/octo/tiny/blob/{HEAD}/models/io.py#L3))"
    ) in body
    assert "[blocking] protected: models/io.py:3 (base and head): " in render(report, "text")
    unlinked = render(dataclasses.replace(report, repo_url=None), "markdown")
    assert "`models/io.py:3` (base and head) · " in unlinked


def test_failure_comment_links_base_findings_to_the_base_sha() -> None:
    body = render(failing_report(), "markdown")
    assert f"(https://github.com/octo/tiny/blob/{BASE}/models/io.py#L3)" in body
    assert "takes effect after merge" in body
    assert "`/recheck`" in body


def test_adopting_pr_says_its_policy_came_from_the_pr_itself() -> None:
    assert "policy came from the change itself" in render(passing_report(), "text")


def test_a_pass_into_a_branch_without_config_says_the_commit_shows_it_as_not_gated() -> None:
    on_pr = dataclasses.replace(passing_report(), rerun="pr")
    assert 'shows as "not gated here" (a neutral check run' in render(on_pr, "markdown")
    assert "not gated here" not in render(passing_report(), "markdown")  # the CLI sets nothing


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
        "behaviour": "skipped",
        "data": "skipped",
        "config-docs": "skipped",
        "api-contract": "skipped",
        "dl-lint": "skipped",
        "metrics": "skipped",
        "perf": "skipped",
        "commands": "skipped",
    }
    finding = data["checks"][0]["findings"][0]
    assert (finding["file"], finding["line"], finding["severity"]) == (
        "models/io.py",
        3,
        "blocking",
    )


def test_a_planned_check_without_a_result_is_shown_as_an_error_not_skipped() -> None:
    planned = plan("models/a.py")  # protected and gradient run; no result came back
    report = Report(verdict=verdict_for((), planned=[c.name for c in planned.to_run]), plan=planned)
    assert report.verdict is Verdict.ERROR
    outcomes = {c["name"]: c["outcome"] for c in as_json(report)["checks"]}
    assert outcomes["protected"] == "error" and outcomes["gradient"] == "error"
    assert outcomes["checkpoint"] == "skipped"
    assert "| 💥 error |" in render(report, "markdown")


def test_updating_golden_files_rewrites_them_and_still_fails_the_run(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    golden = tmp_path / "golden"
    shutil.copytree(GOLDEN, golden)
    (golden / "failure.md").write_text("stale\n", encoding="utf-8")
    env = {**os.environ, "GRADGATE_UPDATE_GOLDEN": "1", "GRADGATE_GOLDEN_DIR": str(golden)}
    only = ("-k", "matches_golden_file")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, *only],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=280,  # under the suite's 300 s: a nested interpreter on a loaded machine
    )
    assert done.returncode != 0, done.stdout  # a regenerated golden is always looked at
    assert "GRADGATE_UPDATE_GOLDEN is set: rewrote failure.md (changed)" in done.stdout
    assert "rewrote success-adopting.md (unchanged)" in done.stdout
    for path in GOLDEN.iterdir():  # the copy now holds what the code renders
        assert (golden / path.name).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_the_json_counts_the_suppressions_that_applied_and_those_that_did_not() -> None:
    data = as_json(suppressed_report())

    assert data["suppressions"] == {"applied": 2, "not_counted": 1}
    (lint,) = [c for c in data["checks"] if c["name"] == "dl-lint"]
    assert [(s["rule"], s["origin"], s["applied"], s["line"]) for s in lint["suppressions"]] == [
        ("hook-in-forward", "change", False, 9),
        ("hook-in-forward", "base", True, 5),
        ("load-unsafe", "config", True, 3),
    ]


def test_a_shrunk_comment_still_counts_the_suppressions_it_cannot_list() -> None:
    report = suppressed_report()

    body = render(report, "markdown", limit=len(render(report, "markdown")) - 200)
    smallest = render(report, "markdown", limit=1)

    assert "### Suppressions" in body
    assert "and 3 more: run `gradgate check --format json`" in smallest


def test_a_model_plan_without_changes_is_folded_and_one_with_changes_is_open() -> None:
    changed = render(model_plan_report(), "markdown")
    assert "### 📐 Model plan: what this change does to the model" in changed
    eager = "#### variant `eager`: no change (192 parameters, 1,152 FLOPs per forward pass)"
    assert eager in changed
    report = model_plan_report()
    assert report.model_plan is not None
    same = dataclasses.replace(report.model_plan, variants=report.model_plan.variants[1:])
    folded = render(dataclasses.replace(report, model_plan=same), "markdown")
    assert "<details><summary>📐 Model plan: no change to the model (192 parameters, " in folded
    assert "### 📐 Model plan" not in folded
    assert "Model plan: no change to the model" in render(
        dataclasses.replace(report, model_plan=same), "text"
    )


def test_a_model_plan_that_could_not_be_made_says_why_folded() -> None:
    problem = dataclasses.replace(
        model_plan_report().model_plan,  # type: ignore[arg-type]
        variants=(),
        problems=(PlanProblem("head", "the head revision's model child is gone"),),
    )
    body = render(dataclasses.replace(model_plan_report(), model_plan=problem), "markdown")
    assert "<details><summary>📐 Model plan: base and head could not be compared</summary>" in body
    assert "- head: the head revision's model child is gone" in body


def test_a_report_without_a_model_plan_has_no_plan_section() -> None:
    assert "Model plan" not in render(passing_report(), "markdown")
    assert json.loads(render(passing_report(), "json"))["model_plan"] is None


def test_repeated_blocks_changed_alike_read_as_one_folded_line() -> None:
    """Issue 37: twelve transformer blocks whose attention changed, but for one, read as two
    folded runs in the model plan's tree."""
    base = blocks(lambda _: "Attention")
    head = blocks(lambda i: "Attention" if i == 5 else "FlashAttention")
    results = (CheckResult(check="protected", outcome=Outcome.PASS, summary="nothing marked"),)
    report = Report(
        verdict=verdict_for(results), results=results, model_plan=plan_for([base], [head])
    )
    markdown, text = render(report, "markdown"), render(report, "text")
    assert "      0–4 (5×): Block\n~       attn: FlashAttention (was Attention)" in markdown
    assert "      6–11 (6×): Block\n" in markdown
    assert "module ~ h.6–11.attn: FlashAttention (was Attention)" in text
