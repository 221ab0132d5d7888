"""The sandbox mode reaches model checks, and the report says how their model code was isolated."""

from __future__ import annotations

import json
from typing import ClassVar

import gradgate.checks as checks
import pytest
from gradgate.bot.pipeline import Request, run_request
from gradgate.bot.report.render import render
from gradgate.bot.report.verdict import Verdict
from gradgate.checks.base import Checking, CheckResult, CheckSettings, Outcome, UserCodeSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.sandbox.for_check import run_user_code

from tests.gitrepo import GitRepo

PROCESS_ONLY = "sandbox: process-level only — install bubblewrap"


class ModelProbe(Checking[UserCodeSettings]):
    """A model check as the model checks are built: it runs the head's factory in the sandbox."""

    name: ClassVar[str] = "gradient"
    title: ClassVar[str] = "Gradient flow"
    settings_model: ClassVar[type[CheckSettings]] = UserCodeSettings
    runs_user_code: ClassVar[bool] = True
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        settings = UserCodeSettings(timeout_s=30.0, memory_mb=1024)
        with ctx.source.checkout(ctx.head_sha) as tree:
            value = run_user_code(
                ctx, settings, target="model.py:build", root=tree, revision="head"
            )
        return CheckResult(check=self.name, outcome=Outcome.PASS, summary=f"built {value}")


@pytest.fixture
def pr(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    monkeypatch.setitem(checks.REGISTRY, "gradient", ModelProbe())
    repo.write("model.py", "def build():\n    return 4\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("model.py", "def build():\n    return 8\n")
    repo.commit("head")
    return repo


def policy(repo: GitRepo, extra: str = "") -> None:
    """A config at base that makes every change run the model check."""
    repo.checkout("main")
    repo.write(".gradgate.yml", f"always: [gradient]\n{extra}")
    repo.commit("policy")
    repo.checkout("pr")
    repo.git("rebase", "-q", "main")


def test_without_bubblewrap_the_report_says_process_level_only(pr: GitRepo, no_bwrap: None) -> None:
    policy(pr)
    report = run_request(Request(repo_path=pr.root, base="main", head="pr"))
    (result,) = report.results
    assert (result.outcome, result.summary) == (Outcome.PASS, "built 8")
    assert report.verdict is Verdict.SUCCESS  # weaker isolation is said, not failed
    assert f"- ⚠️ `gradient` {PROCESS_ONLY} (`bwrap` is not installed)" in render(report, "markdown")
    assert PROCESS_ONLY in render(report, "text")
    rows = json.loads(render(report, "json"))["checks"]
    sandbox = {row["name"]: row["sandbox"] for row in rows}
    assert sandbox["gradient"]["sandbox"] == "process"
    assert sandbox["protected"] is None  # it runs no model code


def test_under_bubblewrap_the_report_says_so(pr: GitRepo, bubblewrap: str) -> None:
    policy(pr)
    report = run_request(Request(repo_path=pr.root, base="main", head="pr"))
    text = render(report, "markdown")
    assert "- 🔒 `gradient` sandbox: bubblewrap, no network" in text
    assert PROCESS_ONLY not in text


@pytest.mark.parametrize(
    ("config", "door", "runs"),
    [
        ("sandbox: require\n", "auto", False),  # the config asks for bubblewrap
        ("", "require", False),  # the door's default (Action, App)
        ("sandbox: auto\n", "require", True),  # the config overrides the door's default
    ],
)
def test_sandbox_require_without_bubblewrap_is_an_error_never_an_unsandboxed_run(
    pr: GitRepo, no_bwrap: None, config: str, door: str, runs: bool
) -> None:
    policy(pr, config)
    request = Request(repo_path=pr.root, base="main", head="pr", sandbox_default=door)  # type: ignore[arg-type]
    (result,) = run_request(request).results
    if runs:
        assert result.outcome is Outcome.PASS
        return
    assert result.outcome is Outcome.ERROR
    assert "`sandbox: require` needs bubblewrap" in result.summary
    assert result.isolation is None  # no user code ran
