"""Every re-run hint keeps `--python` (issue 19): the model ran under the interpreter the user
named, and re-running without it would run it under another (or fail to import torch)."""

from __future__ import annotations

import pytest

from tests.bot.doors.cli.test_first_run import more_epochs, on_pr
from tests.gitrepo import GitRepo


def test_the_rerun_hint_keeps_python(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRADGATE_PYTHON", raising=False)
    more_epochs(repo)

    out = on_pr("check", repo, "--python", "/envs/train/bin/python", capsys=capsys)

    hint = next(line for line in out.splitlines() if line.startswith("Re-run with"))
    assert hint.startswith(
        f"Re-run with `gradgate check --base main --head pr --repo {repo.root} "
        "--python /envs/train/bin/python`"
    )


def test_without_python_the_hint_names_none(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRADGATE_PYTHON", raising=False)
    more_epochs(repo)

    out = on_pr("check", repo, capsys=capsys)

    assert "--python" not in out
