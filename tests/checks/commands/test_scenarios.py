"""The planted regressions of bench/_command_repos.py, each blocked at its line; its harmless
edits pass. Real torch in the sandbox: the `slow` group, but for one regression kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.commands.settings import CommandsSettings, Shrink

from bench._command_repos import PLANTS, STYLES, Plant, style_files
from tests.checks.commands.pr import pull_request
from tests.gitrepo import GitRepo


def settings_for(style: str) -> CommandsSettings:
    shrink = Shrink(args=STYLES[style].args)
    return CommandsSettings(overrides={STYLES[style].script: shrink}, timeout_s=300.0)


def by_name(*names: str) -> list[Plant]:
    return [p for p in PLANTS if p.name in names]


@pytest.mark.parametrize("plant", [p for p in PLANTS if p.regression], ids=lambda p: p.name)
def test_a_planted_regression_blocks_at_its_line(tmp_path: Path, plant: Plant) -> None:
    result = pull_request(
        GitRepo(tmp_path), style_files(plant.style), plant.head(), settings_for(plant.style)
    )

    assert result.outcome is Outcome.FAIL, result.findings
    [found] = result.findings
    assert (found.kind, found.file, found.line) == ("commands-broke", plant.path, plant.line())
    assert "runs at base and fails at head" in found.message
    assert "a line this pull request changed" in found.message


@pytest.mark.parametrize("plant", [p for p in PLANTS if not p.regression], ids=lambda p: p.name)
def test_a_harmless_edit_passes(tmp_path: Path, plant: Plant) -> None:
    result = pull_request(
        GitRepo(tmp_path), style_files(plant.style), plant.head(), settings_for(plant.style)
    )

    assert (result.outcome, result.findings) == (Outcome.PASS, ()), result.findings


def test_torchrun_without_the_gloo_override_fails_at_both_revisions_as_a_note(
    tmp_path: Path,
) -> None:
    [plant] = by_name("method-on-ddp-wrapper")
    shrink = Shrink(args=("--max_iters=1", "--device=cpu"))  # the backend stays nccl
    settings = CommandsSettings(overrides={"train_ddp.py": shrink}, timeout_s=300.0)

    result = pull_request(GitRepo(tmp_path), style_files("torchrun"), plant.head(), settings)

    [found] = result.findings
    assert (found.kind, found.severity) == ("commands-fails-at-base", Severity.NOTE)
