"""The `gradgate` command end to end on real git repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gradgate.bot.doors.cli import main

from tests.bot.config.test_model import MALFORMED
from tests.gitrepo import GitRepo

POLICY = """\
version: 1
zones:
  - name: training
    paths: ["train.py"]
    checks: [protected]
"""

TRAIN = 'RUNS = "runs/v3"  # NO_REFAC\nEPOCHS = 3\n'


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    """`main` with a policy and a protected line; the work happens on branch `pr`."""
    repo.write(".gradgate.yml", POLICY)
    repo.write("train.py", TRAIN)
    repo.commit("base")
    repo.branch("pr")
    return repo


def gate(repo: GitRepo, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["check", "--repo", str(repo.root), "--base", "main", "--head", "pr", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_untouched_protected_line_passes_with_exit_0(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("train.py", TRAIN.replace("EPOCHS = 3", "EPOCHS = 5"))
    project.commit("more epochs")
    code, out, _ = gate(project, capsys=capsys)
    assert code == 0, out
    assert "gradgate passed" in out


def test_edited_protected_line_fails_with_exit_1_and_names_file_and_line(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    project.commit("move runs")
    code, out, _ = gate(project, capsys=capsys)
    assert code == 1
    assert "train.py:1" in out and "NO_REFAC" in out


def test_json_format_is_machine_readable(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    project.commit("move runs")
    code, out, _ = gate(project, "--format", "json", capsys=capsys)
    data = json.loads(out)
    assert (code, data["verdict"]) == (1, "failure")
    assert data["head_sha"] == project.git("rev-parse", "pr")


def test_a_pr_cannot_loosen_its_own_gate(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(".gradgate.yml", POLICY + "checks:\n  protected:\n    markers: [NOTHING]\n")
    project.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    project.commit("loosen and edit")
    code, out, _ = gate(project, capsys=capsys)
    assert code == 1
    assert "takes effect after merge" in out


def test_the_pr_that_adopts_gradgate_is_gated_by_its_own_config(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("train.py", TRAIN)
    repo.commit("base without gradgate")
    repo.branch("pr")
    repo.write(".gradgate.yml", POLICY)
    repo.commit("adopt gradgate")
    code, out, _ = gate(repo, capsys=capsys)
    assert code == 0
    assert "policy came from the change itself" in out


def test_config_outside_the_repo_is_used_with_config_flag(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("train.py", 'RUNS = "runs/v3"  # KEEP\n')
    repo.commit("base")
    repo.branch("pr")
    repo.write("train.py", 'RUNS = "runs/v4"  # KEEP\n')
    repo.commit("edit")
    policy = tmp_path / "policy.yml"
    policy.write_text("checks:\n  protected:\n    markers: [KEEP]\n")
    code, out, _ = gate(repo, "--config", str(policy), capsys=capsys)
    assert code == 1, out


def test_bad_config_at_base_is_exit_2_naming_key_and_line(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".gradgate.yml", "zones:\n  - name: m\n    pathz: [x]\n")
    repo.commit("bad policy")
    repo.branch("pr")
    repo.write("a.py", "x = 1\n")
    repo.commit("change")
    code, out, _ = gate(repo, capsys=capsys)
    assert code == 2
    assert ".gradgate.yml at base" in out and ":3:" in out and "pathz" in out


def test_unknown_revision_is_exit_2_with_a_message_not_a_traceback(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", "--repo", str(project.root), "--base", "nope", "--head", "pr"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "nope" in out and "Traceback" not in out + err


def test_only_runs_the_named_check(project: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    project.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    project.commit("move runs")
    code, out, _ = gate(project, "--only", "gradient", "--format", "json", capsys=capsys)
    outcomes = {c["name"]: c["outcome"] for c in json.loads(out)["checks"]}
    assert outcomes["protected"] == "skipped"
    assert code == 0


def test_unknown_check_in_only_is_a_usage_error(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", "--repo", str(project.root), "--only", "gradeint"])
    assert code == 2
    assert "gradeint" in capsys.readouterr().err


def test_plan_lists_zones_and_reasons(project: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    project.write("train.py", TRAIN + "LR = 1\n")
    project.commit("lr")
    code = main(["plan", "--repo", str(project.root), "--base", "main", "--head", "pr"])
    out = capsys.readouterr().out
    assert code == 0
    assert "zone training: train.py" in out
    assert "`train.py` is in zone `training`" in out


def test_plan_never_imports_torch(project: GitRepo) -> None:
    project.write("train.py", TRAIN + "LR = 1\n")
    project.commit("lr")
    probe = (
        "import sys; from gradgate.bot.doors.cli import main; "
        f"code = main(['plan', '--repo', {str(project.root)!r}, '--head', 'pr']); "
        "print('TORCH' if 'torch' in sys.modules else 'NO-TORCH', code)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "NO-TORCH 0"


def test_init_writes_a_starter_config_that_check_accepts(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("models/net.py", "x = 1\n")
    repo.commit("code")
    assert main(["init", "--repo", str(repo.root)]) == 0
    written = (repo.root / ".gradgate.yml").read_text()
    assert "model-core" in written
    repo.branch("pr")
    repo.write("models/net.py", "x = 2\n")
    repo.commit("change")
    capsys.readouterr()
    code, out, _ = gate(repo, capsys=capsys)
    assert code == 0, out


def test_init_never_overwrites_an_existing_config(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".gradgate.yml", "# mine\n")
    repo.commit("mine")
    assert main(["init", "--repo", str(repo.root)]) == 2
    assert "--force" in capsys.readouterr().err
    assert (repo.root / ".gradgate.yml").read_text() == "# mine\n"


def test_init_print_shows_the_proposal_from_the_files_contents_and_writes_nothing(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".gradgate.yml", "# mine\n")
    repo.write("net.py", "import torch.nn as nn\n\n\nclass Net(nn.Module):\n    pass\n")
    repo.write("fit.py", "loss.backward()\n")
    repo.commit("code")
    assert main(["init", "--repo", str(repo.root), "--print"]) == 0
    out = capsys.readouterr().out
    assert '- "/net.py"' in out  # not named like a model: found by its nn.Module subclass
    assert '- "/fit.py"' in out
    assert (repo.root / ".gradgate.yml").read_text() == "# mine\n"


def test_schema_is_json_with_the_yaml_spellings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "config-docs" in json.dumps(schema)


def test_not_a_repository_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "--repo", str(tmp_path)])
    assert code == 2
    assert "not a git repository" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "key_path", "line"),
    [c[1:4] for c in MALFORMED],
    ids=[c[0] for c in MALFORMED],
)
def test_malformed_config_at_base_exits_2_naming_key_and_line(
    repo: GitRepo,
    text: str,
    key_path: str | None,
    line: int,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo.write(".gradgate.yml", text)
    repo.write("train.py", TRAIN)
    repo.commit("base with a broken policy")
    repo.branch("pr")
    repo.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    repo.commit("change")
    code, out, err = gate(repo, capsys=capsys)
    assert code == 2
    assert f".gradgate.yml at base {repo.git('rev-parse', '--short=7', 'main')}:{line}:" in out
    if key_path is not None:
        assert f"`{key_path}`" in out
    assert "Traceback" not in out + err


def test_base_defaults_to_master_when_there_is_no_main(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.git("branch", "-m", "main", "master")
    project.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    project.commit("move runs")
    code = main(["check", "--repo", str(project.root), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert data["base_sha"] == project.git("rev-parse", "master")


MODEL = '''class Net:
    """A tiny net."""

    def forward(self, x):
        return x * 2  # double it
'''
GPU_POLICY = """\
zones:
  - name: model-core
    paths: ["models/**"]
    checks: [protected, gradient]
"""


@pytest.fixture
def model_repo(repo: GitRepo) -> GitRepo:
    repo.write(".gradgate.yml", GPU_POLICY)
    repo.write("models/net.py", MODEL)
    repo.commit("base")
    repo.branch("pr")
    return repo


def test_docstring_only_change_skips_the_gradient_check_as_non_semantic(
    model_repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    model_repo.write("models/net.py", MODEL.replace("A tiny net.", "A small network."))
    model_repo.commit("docs")
    code, out, _ = gate(model_repo, "--format", "json", capsys=capsys)
    data = json.loads(out)
    gradient = next(c for c in data["plan"]["checks"] if c["name"] == "gradient")
    assert code == 0
    assert data["plan"]["zones"] == {"model-core": ["models/net.py"]}
    assert (gradient["run"], gradient["reasons"][0]["kind"]) == (False, "non-semantic")
    assert gradient["reasons"][0]["zone"] == "model-core"


def test_code_change_in_the_same_zone_runs_the_gradient_check_which_needs_the_model(
    model_repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    model_repo.write("models/net.py", MODEL.replace("x * 2", "x * 3"))
    model_repo.commit("code")
    code, out, _ = gate(model_repo, capsys=capsys)
    assert code == 2  # the config has no `model:` block: an error, never a pass
    assert "`gradient` needs your model, and .gradgate.yml has no `model:` block" in out


def test_progress_names_only_the_steps_that_are_slow() -> None:
    import io
    import time

    from gradgate.bot.doors.cli import _progress

    stream = io.StringIO()
    with _progress(stream, after_s=0.2) as step:
        step("reading the diff")  # replaced before its time is up: never printed
        step("running protected")
        time.sleep(0.6)
    assert stream.getvalue() == "gradgate: running protected…\n"


def test_python_comes_from_the_flag_else_gradgate_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gradgate.bot.doors.cli import _parser

    monkeypatch.setenv("GRADGATE_PYTHON", "/envs/train/bin/python")
    assert _parser().parse_args(["check"]).python == "/envs/train/bin/python"
    assert _parser().parse_args(["check", "--python", "py3"]).python == "py3"
    monkeypatch.delenv("GRADGATE_PYTHON")
    assert _parser().parse_args(["plan"]).python is None
