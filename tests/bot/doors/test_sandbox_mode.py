"""The doors choose the sandbox mode: the CLI's --sandbox, the Action's require on Linux."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

import gradgate.checks as checks
import pytest
from gradgate.bot.doors.cli import main
from gradgate.bot.doors.cli.parser import build_parser as _parser
from gradgate.bot.doors.isolated import check_command
from gradgate.bot.pipeline import Request
from gradgate.checks.base import Checking, CheckResult, CheckSettings, Outcome, UserCodeSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.sandbox.for_check import run_user_code

from tests.bot.doors.action.world import World
from tests.gitrepo import GitRepo


class ModelProbe(Checking[UserCodeSettings]):
    name: ClassVar[str] = "gradient"
    title: ClassVar[str] = "Gradient flow"
    settings_model: ClassVar[type[CheckSettings]] = UserCodeSettings
    runs_user_code: ClassVar[bool] = True
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        with ctx.source.checkout(ctx.head_sha) as tree:
            run_user_code(ctx, UserCodeSettings(), target="model.py:build", root=tree,
                          revision="head")  # fmt: skip
        return CheckResult(check=self.name, outcome=Outcome.PASS, summary="built")


def test_check_takes_the_sandbox_mode_for_a_config_without_one() -> None:
    assert _parser().parse_args(["check"]).sandbox == "auto"
    assert _parser().parse_args(["check", "--sandbox", "require"]).sandbox == "require"


def test_check_sandbox_require_without_bubblewrap_exits_2_and_runs_no_model_code(
    repo: GitRepo,
    no_bwrap: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(checks.REGISTRY, "gradient", ModelProbe())
    repo.write(".gradgate.yml", "always: [gradient]\n")
    repo.write("model.py", "def build():\n    return 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("model.py", "def build():\n    return 2\n")
    repo.commit("head")
    args = ["check", "--repo", str(repo.root), "--base", "main", "--head", "pr"]
    assert main([*args, "--sandbox", "require"]) == 2
    assert "`sandbox: require` needs bubblewrap" in capsys.readouterr().out
    assert main(args) == 0  # auto: process-level, and the report says so
    assert "sandbox: process-level only — install bubblewrap" in capsys.readouterr().out


def test_the_checks_child_gets_the_doors_sandbox_mode() -> None:
    request = Request(repo_path=Path("."), base="a", head="b", sandbox_default="require")
    command = check_command(request)
    assert command[command.index("--sandbox") + 1] == "require"
    assert "--sandbox" not in check_command(Request(repo_path=Path("."), base="a", head="b"))


def test_the_action_requires_bubblewrap_on_linux(world: World) -> None:
    seen: list[Request] = []

    def recording(request: Request) -> list[str]:
        seen.append(request)
        return check_command(request)

    world.monkeypatch.setattr("gradgate.bot.doors.isolated.check_command", recording)
    world.pull_request()
    assert seen, "the Action ran no checks"
    expected = "require" if sys.platform.startswith("linux") else "auto"
    assert {r.sandbox_default for r in seen} == {expected}
