"""The pipeline isolates each check: a check that raises is an error result, never a crash."""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

import gradgate.checks as checks
import pytest
from gradgate.bot.pipeline import Request, run_request
from gradgate.bot.report.verdict import Verdict
from gradgate.checks.base import Checking, CheckResult, CheckSettings, Outcome
from gradgate.checks.context import CheckContext
from gradgate.checks.pending import _Pending

from tests.gitrepo import GitRepo


class Hanging(Checking[CheckSettings]):
    """An in-process check that never finishes (a parser stuck on a hostile file)."""

    name: ClassVar[str] = "protected"
    title: ClassVar[str] = "Protected lines"
    settings_model: ClassVar[type[CheckSettings]] = CheckSettings
    runs_user_code: ClassVar[bool] = False
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        time.sleep(30)  # abandoned after its limit; dies with the test process
        return CheckResult(check=self.name, outcome=Outcome.PASS, summary="late")


class Exploding(Checking[CheckSettings]):
    name: ClassVar[str] = "protected"
    title: ClassVar[str] = "Protected lines"
    settings_model: ClassVar[type[CheckSettings]] = CheckSettings
    runs_user_code: ClassVar[bool] = False
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        raise RuntimeError("cannot parse models/net.py")


@pytest.fixture
def pr(repo: GitRepo) -> Path:
    repo.write("models/net.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("models/net.py", "x = 2\n")
    repo.commit("head")
    return repo.root


def test_a_check_that_raises_becomes_an_error_result_and_an_error_verdict(
    pr: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(checks.REGISTRY, "protected", Exploding())
    report = run_request(Request(repo_path=pr, base="main", head="pr"))
    (result,) = report.results
    assert result.outcome is Outcome.ERROR
    assert result.summary == "RuntimeError: cannot parse models/net.py"
    assert report.verdict is Verdict.ERROR


class NotBuilt(_Pending):
    name = "checkpoint"
    title = "Checkpoint compatibility"
    runs_user_code = True


def test_a_required_check_that_is_not_built_is_unavailable_and_not_a_pass(
    repo: GitRepo, pr: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(checks.REGISTRY, "checkpoint", NotBuilt())
    repo.checkout("main")
    repo.write(
        ".gradgate.yml", "zones:\n  - name: m\n    paths: [models/**]\n    checks: [checkpoint]\n"
    )
    repo.commit("policy")
    repo.checkout("pr")
    repo.git("rebase", "-q", "main")
    report = run_request(Request(repo_path=pr, base="main", head="pr"))
    outcomes = {r.check: r.outcome for r in report.results}
    assert outcomes == {"protected": Outcome.PASS, "checkpoint": Outcome.UNAVAILABLE}
    assert report.verdict is Verdict.ERROR


def test_the_report_names_the_merge_base_not_the_moving_base_branch(
    repo: GitRepo, pr: Path
) -> None:
    fork_point = repo.git("rev-parse", "main")
    repo.checkout("main")
    repo.write("later.py", "y = 1\n")
    repo.commit("main moved on")
    report = run_request(Request(repo_path=pr, base="main", head="pr"))
    assert report.base_sha == fork_point
    assert report.plan is not None and report.plan.changed_files == 1


def test_an_in_process_check_past_its_timeout_is_an_error_naming_check_and_limit(
    repo: GitRepo, pr: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.checkout("main")
    repo.write(".gradgate.yml", "checks:\n  protected:\n    timeout_s: 0.5\n")
    repo.commit("policy")
    repo.checkout("pr")
    repo.git("rebase", "-q", "main")
    monkeypatch.setitem(checks.REGISTRY, "protected", Hanging())
    started = time.monotonic()
    report = run_request(Request(repo_path=pr, base="main", head="pr"))
    assert time.monotonic() - started < 20
    (result,) = report.results
    assert result.outcome is Outcome.ERROR
    assert "`protected` did not finish within its limit of 0.5 s" in result.summary
    assert "checks.protected.timeout_s" in result.summary
    assert report.verdict is Verdict.ERROR


class Recording(Checking[CheckSettings]):
    """Stands in for `protected` and remembers the interpreter each run was given."""

    name: ClassVar[str] = "protected"
    title: ClassVar[str] = "Protected lines"
    settings_model: ClassVar[type[CheckSettings]] = CheckSettings
    runs_user_code: ClassVar[bool] = False
    available: ClassVar[bool] = True

    def __init__(self) -> None:
        self.pythons: list[str | None] = []

    def run(self, ctx: CheckContext) -> CheckResult:
        self.pythons.append(ctx.python)
        return CheckResult(check=self.name, outcome=Outcome.PASS, summary="ok")


@pytest.mark.parametrize(
    ("configured", "given", "expected"),
    [
        (None, None, None),  # gradgate's own interpreter
        ("python3.10", None, "python3.10"),  # a command on PATH stays a command
        ("/opt/env/bin/python", None, "/opt/env/bin/python"),
        (".venv/bin/python", None, "{root}/.venv/bin/python"),  # relative to the repo root
        (".venv/bin/python", "/usr/bin/python3", "/usr/bin/python3"),  # --python wins
    ],
)
def test_checks_get_the_interpreter_from_the_request_else_the_config(
    repo: GitRepo,
    pr: Path,
    monkeypatch: pytest.MonkeyPatch,
    configured: str | None,
    given: str | None,
    expected: str | None,
) -> None:
    if configured is not None:
        repo.checkout("main")
        repo.write(".gradgate.yml", f"python: {configured}\n")
        repo.commit("policy")
        repo.checkout("pr")
        repo.git("rebase", "-q", "main")
    recording = Recording()
    monkeypatch.setitem(checks.REGISTRY, "protected", recording)
    run_request(Request(repo_path=pr, base="main", head="pr", python=given))
    root = str(pr.resolve())
    assert recording.pythons == [None if expected is None else expected.format(root=root)]


def test_a_touched_zone_note_names_the_owners_the_config_gives_the_zone(
    repo: GitRepo, pr: Path
) -> None:
    repo.checkout("main")
    repo.write(
        ".gradgate.yml",
        "zones:\n"
        "  - name: model-core\n    paths: [models/**]\n    checks: [protected]\n"
        "    owners: ['@alice', '@ml-team']\n"
        "  - name: unowned\n    paths: [models/net.py]\n    checks: [protected]\n",
    )
    repo.commit("policy")
    repo.checkout("pr")
    repo.git("rebase", "-q", "main")
    report = run_request(Request(repo_path=pr, base="main", head="pr"))
    [protected] = [r for r in report.results if r.check == "protected"]
    assert [f.message for f in protected.findings] == [
        "`models/net.py` is in protected zone `model-core`; ask an owner (`@alice`, `@ml-team`) "
        "to review.",
        "`models/net.py` is in protected zone `unowned`; review it with care (add `owners:` to "
        "the zone to name who decides).",
    ]


class SandboxRecording(Recording):
    def __init__(self) -> None:
        super().__init__()
        self.sandboxes: list[str] = []

    def run(self, ctx: CheckContext) -> CheckResult:
        self.sandboxes.append(ctx.sandbox)
        return super().run(ctx)


@pytest.mark.parametrize("untrusted", [False, True])
def test_a_forks_head_config_is_never_adopted_and_its_code_runs_only_under_bubblewrap(
    repo: GitRepo, pr: Path, monkeypatch: pytest.MonkeyPatch, untrusted: bool
) -> None:
    """Issue 17: on the Action's trusted side a fork's `.gradgate.yml` decides nothing."""
    repo.write(".gradgate.yml", "sandbox: auto\npython: /fork/python\n")  # on the PR branch
    repo.commit("adopt gradgate, loosely")
    recording = SandboxRecording()
    monkeypatch.setitem(checks.REGISTRY, "protected", recording)

    report = run_request(Request(repo_path=pr, base="main", head="pr", untrusted_head=untrusted))

    if untrusted:
        assert report.config_source == "built-in defaults"
        assert (recording.pythons, recording.sandboxes) == ([None], ["untrusted"])
    else:  # a trusted PR adopts its own config
        assert (recording.pythons, recording.sandboxes) == (["/fork/python"], ["auto"])
