"""Issue 36: a new user's interpreter, as the README writes it. A relative `--python
.venv/bin/python` (or GRADGATE_PYTHON) is read against the directory it was given in, not the
sandbox's, and `init` with an interpreter it cannot run is an error, never a template and exit 0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from gradgate.bot.doors.cli import main
from gradgate.bot.doors.cli.parser import build_parser
from gradgate.checks.sandbox import probe

from tests.gitrepo import GitRepo


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `.venv/bin/python` in the current directory, a link to this interpreter."""
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRADGATE_PYTHON", raising=False)
    return tmp_path


@pytest.mark.parametrize("command", ["check", "plan", "init", "action"])
def test_a_relative_python_is_read_where_it_was_given_and_runs(command: str, venv: Path) -> None:
    args = build_parser().parse_args([command, "--python", ".venv/bin/python"])
    assert args.python == str(venv / ".venv" / "bin" / "python")  # not resolved past the link
    found = probe.interpreter(args.python, os.environ.get("PATH", os.defpath))  # from `/`
    assert found.executable


def test_a_relative_gradgate_python_is_read_where_it_was_given(
    venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADGATE_PYTHON", "./.venv/bin/python")
    args = build_parser().parse_args(["check"])
    assert args.python == str(venv / ".venv" / "bin" / "python")
    monkeypatch.setenv("GRADGATE_PYTHON", "python3")  # a name: looked up on PATH, as it was
    assert build_parser().parse_args(["check"]).python == "python3"


def test_init_with_an_interpreter_it_cannot_run_exits_2_and_writes_nothing(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRADGATE_PYTHON", raising=False)
    repo.write("model.py", "from torch import nn\n\n\nclass Net(nn.Module):\n    pass\n")
    repo.commit("model")
    monkeypatch.chdir(repo.root)
    code = main(["init", "--python", ".venv/bin/python"])
    _, err = capsys.readouterr()
    assert code == 2
    assert f"`{repo.root / '.venv' / 'bin' / 'python'}`" in err
    assert not (repo.root / ".gradgate.yml").exists()
    assert not (repo.root / "gradgate_factory.py").exists()


def test_the_demo_closing_hint_is_a_command_that_works_as_printed() -> None:
    from gradgate.bot.templates import render_template

    said = render_template(
        "demo_outro.txt.j2", worked=True, keep=None, tallies=[], python="/envs/my env/bin/python"
    )
    assert "  gradgate init --python '/envs/my env/bin/python'\n" in said
    assert "  gradgate check --python '/envs/my env/bin/python'\n" in said
    assert "--base main" not in said  # the base is found (main, else master, else origin/HEAD)


def test_the_untested_code_snippet_for_a_file_named_model_py_is_not_garbled() -> None:
    from gradgate.checks.gradient.words import factory_shape

    snippet = factory_shape("model.py", [(12, 14)], [])
    assert "    model = ..." not in snippet  # the factory's own `model`, overwritten
    assert "    feature = ...  # the model with the option that runs model.py:12–14" in snippet
    assert '        "feature": (feature, inputs),' in snippet
    compile(snippet.replace("...", "None"), "<snippet>", "exec")


def test_init_names_the_next_command_as_it_works_from_here(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRADGATE_PYTHON", raising=False)
    repo.write("train.py", "EPOCHS = 3\n")
    repo.commit("base")
    monkeypatch.chdir(repo.root.parent)
    code = main(["init", "--repo", repo.root.name, "--no-factory", "--python", "env/bin/python"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.rstrip().endswith(
        f"then run `gradgate check --repo {repo.root.name} --python env/bin/python`"
    )
