"""`gradgate check` keeps its model results in the user's cache folder ($XDG_CACHE_HOME/gradgate)
and says which came from there; `--no-cache` neither reads nor writes it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gradgate.bot.doors.cli import main

from tests.gitrepo import GitRepo

MODEL = """\
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, {width}), nn.ReLU(), nn.Linear({width}, 2)), torch.randn(3, 4)
"""
CONFIG = 'model:\n  entrypoint: "model.py:build"\nalways: [gradient]\n'


def check(repo: GitRepo, capsys: pytest.CaptureFixture[str], *more: str) -> dict[str, object]:
    argv = ["check", "--repo", str(repo.root), "--base", "main", "--head", "pr"]
    main([*argv, "--format", "json", *more])
    return json.loads(capsys.readouterr().out)


def cached(data: dict[str, object]) -> list[object]:
    return [c for check in data["checks"] for c in check["cached"]]  # type: ignore[attr-defined]


def test_a_second_check_reads_the_first_ones_results(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = repo.pull_request(
        {".gradgate.yml": CONFIG, "model.py": MODEL.format(width=8)},
        {"model.py": MODEL.format(width=16)},
    )
    folder = Path(os.environ["XDG_CACHE_HOME"]) / "gradgate" / "results"

    assert check(repo, capsys, "--no-cache")["verdict"] == "success"
    assert not folder.exists()  # --no-cache writes nothing
    first = check(repo, capsys)
    assert cached(first) == [] and any(folder.iterdir())
    again = check(repo, capsys)
    assert again["verdict"] == first["verdict"]
    assert {(c["revision"], c["commit"]) for c in cached(again)} == {("base", base), ("head", head)}  # type: ignore[index]
    assert cached(check(repo, capsys, "--no-cache")) == []
