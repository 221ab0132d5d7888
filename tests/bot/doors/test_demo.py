from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gradgate.bot.doors.demo import PLANTED, tally
from gradgate.bot.report.render import Report
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates import render_template
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity

from tests.once import once


def run_demo(*args: str, python: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GRADGATE_PYTHON"}
    if python is not None:
        env["GRADGATE_PYTHON"] = python
    return subprocess.run(
        [sys.executable, "-m", "gradgate.bot", "demo", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_demo_exits_0_and_its_report_fails_the_planted_pr() -> None:
    done = run_demo()
    assert done.returncode == 0, done.stderr
    assert "gradgate failed" in done.stdout
    assert "train.py:10" in done.stdout and "NO_REFAC" in done.stdout
    # The planted README/config batch-size disagreement, at both README places, with the fix.
    assert "README.md:15 (head): `README.md:15` (table) says `batch_size` is `32`" in done.stdout
    assert "`configs/train.yaml:1` (config) now sets it to `64`" in done.stdout
    assert "| `batch_size` | 64 | images per step |" in done.stdout
    assert "README.md:11 (head):" in done.stdout
    # The stray `.detach()`, caught by the gradient check run on the example's model.
    assert (
        "[blocking] gradient: tinycls/model.py:15 (head): `proj.*` (2 parameters) learned at base "
        "and "
        "are detached at head" in done.stdout
    )
    assert "proj                 4.68 → no gradient" in done.stdout
    # Breakage by breakage, what caught it: all six, each by the check built for it.
    for line in (
        "caught   the edited `# NO_REFAC` line in train.py (protected)",
        "caught   the stray `.detach()` that stops `proj` from learning (gradient)",
        "caught   the renamed layer (`fc` -> `classifier`) that old checkpoints no longer "
        "load into (checkpoint)",
        "caught   the dropped BGR→RGB conversion in the evaluation preprocessing (data)",
        "caught   the README's `batch_size 32` against the config's 64 (config-docs)",
        "caught   the swapped `(targets, logits)` loss arguments (api-contract)",
    ):
        assert line in done.stderr
    assert "missed" not in done.stderr and "waiting" not in done.stderr
    assert "The gate did its job" in done.stderr


def _outro(results: tuple[CheckResult, ...]) -> str:
    report = Report(verdict=Verdict.FAILURE, results=results)
    tallies = tally(report)
    worked = all(t.caught for t in tallies)
    return render_template(
        "demo_outro.txt.j2", worked=worked, keep=None, tallies=tallies, python="/env/bin/python"
    )


def test_the_demo_says_which_breakages_were_not_caught_and_why() -> None:
    protected = Finding(
        kind="protected-line-changed", severity=Severity.BLOCKING, message="m", file="train.py"
    )
    results = (
        CheckResult("protected", Outcome.FAIL, "1 protected line changed", (protected,)),
        CheckResult("gradient", Outcome.UNAVAILABLE, "not yet"),
        CheckResult("checkpoint", Outcome.ERROR, "could not load"),
        CheckResult("config-docs", Outcome.PASS, "agrees"),
        # api-contract: no result at all
    )
    said = _outro(results)
    assert "caught   the edited `# NO_REFAC` line in train.py (protected)" in said
    assert "waiting  the stray `.detach()` that stops `proj` from learning (the gradient " in said
    assert "is not available in this version of gradgate" in said
    assert "(the checkpoint check could not decide; see its line in the report)" in said
    assert "(the config-docs check ran and did not flag it)" in said
    assert "(the api-contract check did not run; see its line in the report)" in said
    assert "The gate did its job" not in said and "Not every planted breakage" in said


def test_every_planted_breakage_has_a_check_that_exists() -> None:
    from gradgate.checks import REGISTRY

    assert {p.check for p in PLANTED} <= set(REGISTRY)
    assert len({p.check for p in PLANTED}) == len(PLANTED)  # one check per breakage


def test_demo_without_torch_says_what_to_install_and_exits_2(tmp_path: Path) -> None:
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    python = str(tmp_path / "venv" / "bin" / "python")

    done = run_demo(python=python)

    assert done.returncode == 2
    assert f"but `{python}` has no torch" in done.stderr
    assert f"{python} -m pip install 'torch==2.13.0'" in done.stderr
    assert done.stdout == ""


@pytest.fixture(scope="module")
def json_demo(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One JSON run of the demo (about 12 s) for the tests that read its report, and the
    example repo it kept: one per test run, shared by the workers (the tests only read it)."""

    def build(folder: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
        return run_demo("--format", "json", "--keep", str(folder / "example")), folder / "example"

    return once(tmp_path_factory, "demo-json", build)


def test_demo_json_shows_every_planted_zone(
    json_demo: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    done, keep = json_demo
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report["plan"]["zones"]) == {"model-core", "training", "config-docs"}
    # The planted layer rename (fc -> classifier), with the map to paste.
    (checkpoint,) = [c for c in report["checks"] if c["name"] == "checkpoint"]
    assert checkpoint["outcome"] == "fail"
    (renamed,) = [f for f in checkpoint["findings"] if f["kind"] == "checkpoint-renamed"]
    assert "`fc.*`" in renamed["message"] and "`classifier.*`" in renamed["message"]
    assert "'^fc\\.': 'classifier.'" in renamed["details"]
    names = subprocess.run(
        ["git", "diff", "--name-only", "main", "pr/tidy-up"],
        cwd=keep,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert set(names.split()) == {
        "configs/train.yaml",
        "tinycls/data.py",
        "tinycls/losses.py",
        "tinycls/model.py",
        "train.py",
    }


def test_demo_refuses_a_non_empty_keep_directory(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("mine")
    done = run_demo("--keep", str(tmp_path))
    assert done.returncode == 2
    assert "not empty" in done.stderr
    assert (tmp_path / "precious.txt").read_text() == "mine"


def test_demo_catches_the_planted_swapped_loss_arguments(
    json_demo: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    done, _ = json_demo
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    api = next(c for c in report["checks"] if c["name"] == "api-contract")
    assert api["outcome"] == "fail"
    found = {(f["kind"], f["file"], f["line"]) for f in api["findings"]}
    assert found == {
        ("signature-reordered", "tinycls/losses.py", 5),  # weighted_loss(targets, logits, ...)
        ("loss-arguments-swapped", "tinycls/losses.py", 6),  # F.cross_entropy(targets, logits)
    }
    reorder = next(f for f in api["findings"] if f["kind"] == "signature-reordered")
    assert "train.py:25: weighted_loss(y, model(x))" in reorder["details"]
    gradient = next(c for c in report["plan"]["checks"] if c["name"] == "gradient")
    sensitive = [r for r in gradient["reasons"] if r["kind"] == "gradient-sensitive"]
    data = next(c for c in report["checks"] if c["name"] == "data")
    assert data["outcome"] == "fail"
    (swapped,) = data["findings"]
    assert "head channel 0 is base channel 2: BGR ↔ RGB" in swapped["message"]
    assert sensitive == [
        {
            "kind": "gradient-sensitive",
            "zone": None,
            "path": "tinycls/model.py",
            "more": 0,
            "line": 15,
            "construct": ".detach()",
            "removed": False,
        }
    ]
