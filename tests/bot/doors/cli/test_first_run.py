"""A new user's first runs of `gradgate plan` and `gradgate check`: what they are told before
anything runs (a zone pattern that matches nothing, an uncommitted config, nothing protected)
and the re-run hint, on real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gradgate.bot.doors.cli import main

from tests.gitrepo import GitRepo

POLICY = """\
zones:
  - name: model-core
    paths: ["src/pkg/model.py", "src/pkg/layers/**"]
    checks: [protected]
"""


def run(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def more_epochs(repo: GitRepo, **base: str) -> None:
    """`main` with train.py (and ``base``: path -> text), and branch `pr` that edits train.py."""
    repo.write("train.py", "EPOCHS = 3\n")
    for path, text in base.items():
        repo.write(path, text)
    repo.commit("base")
    repo.branch("pr")
    repo.write("train.py", "EPOCHS = 5\n")
    repo.commit("more epochs")


def on_pr(command: str, repo: GitRepo, *args: str, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``command`` prints for main..pr of ``repo``."""
    where = ("--repo", str(repo.root), "--base", "main", "--head", "pr")
    return run(command, *where, *args, capsys=capsys)[1]


@pytest.fixture
def zoned(repo: GitRepo) -> GitRepo:
    repo.write(".gradgate.yml", POLICY)
    repo.write("src/pkg/model.py", "class Net:\n    pass\n")
    repo.write("src/pkg/layers/attn.py", "A = 1\n")
    repo.commit("base")
    repo.branch("pr")
    return repo


def test_a_file_renamed_out_of_its_zone_is_a_warning_in_plan_and_report(
    zoned: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    zoned.move("src/pkg/model.py", "src/pkg/gpt.py")
    zoned.commit("rename the model")
    where = ("--repo", str(zoned.root), "--base", "main", "--head", "pr")

    code, out, _ = run("plan", *where, capsys=capsys)
    assert code == 0
    assert "match no file at head, so they protect nothing" in out
    assert "  model-core: src/pkg/model.py\n" in out
    assert "layers" not in out.split("Warning:")[1].split("Would run")[0]  # that one matches

    _, out, _ = run("plan", *where, "--format", "json", capsys=capsys)
    assert json.loads(out)["unmatched"] == {"model-core": ["src/pkg/model.py"]}

    _, out, _ = run("check", *where, capsys=capsys)
    assert "Warning: These zone patterns match no file at head" in out
    assert "  model-core: src/pkg/model.py\n" in out


def test_zone_patterns_that_all_match_say_nothing(
    zoned: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    zoned.write("src/pkg/model.py", "class Net:\n    x = 1\n")
    zoned.commit("edit")
    out = on_pr("plan", zoned, capsys=capsys)
    assert "Warning" not in out and "match no file" not in out


def test_a_typo_in_a_pattern_is_caught_before_any_file_moves(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".gradgate.yml", POLICY.replace("src/pkg/model.py", "src/pkg/Model.py"))
    repo.write("src/pkg/model.py", "class Net:\n    pass\n")
    repo.write("src/pkg/layers/attn.py", "A = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("notes.txt", "hi\n")
    repo.commit("unrelated")
    out = on_pr("plan", repo, capsys=capsys)
    assert "  model-core: src/pkg/Model.py\n" in out


def test_right_after_init_the_uncommitted_config_is_noticed(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    more_epochs(repo)
    assert run("init", "--repo", str(repo.root), capsys=capsys)[0] == 0
    where = ("--repo", str(repo.root), "--base", "main", "--head", "HEAD")

    code, out, _ = run("check", *where, capsys=capsys)
    assert code == 0
    assert "Found an uncommitted .gradgate.yml" in out
    assert "this run used the built-in defaults" in out
    assert "Commit it, or pass `--config .gradgate.yml`" in out
    assert "No .gradgate.yml was found" not in out  # one note, the one that helps
    assert "Commit your .gradgate.yml to protect what it names" in out
    assert "Run `gradgate init`" not in out  # it just ran
    _, out, _ = run("plan", *where, capsys=capsys)
    assert "Found an uncommitted .gradgate.yml" in out

    repo.git("add", ".gradgate.yml")
    repo.commit("adopt gradgate")
    _, out, _ = run("check", *where, capsys=capsys)
    assert "uncommitted" not in out

    # Edited and not committed: the committed one ran, and the report says which.
    (repo.root / ".gradgate.yml").write_text("zones: []\n", encoding="utf-8")
    _, out, _ = run("check", *where, capsys=capsys)
    assert "Found an uncommitted .gradgate.yml" in out
    assert "this run used the one committed at head" in out

    # Checking some other head than the checkout: the work tree's file is not about it.
    other = repo.root.parent / "other"
    repo.git("worktree", "add", "-q", "-b", "other", str(other), "main")
    (other / "train.py").write_text("EPOCHS = 4\n", encoding="utf-8")
    repo.git("-C", str(other), "commit", "-qam", "four")
    _, out, _ = run(
        "check", "--repo", str(repo.root), "--base", "main", "--head", "other", capsys=capsys
    )
    assert "uncommitted" not in out


def test_no_zones_and_no_markers_anywhere_says_nothing_is_protected_yet(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    more_epochs(repo)

    code, out, _ = run("check", "--repo", str(repo.root), "--base", "main", capsys=capsys)
    assert code == 0
    assert out.startswith("gradgate passed, but nothing is protected yet\n")
    assert "Run `gradgate init` to propose zones" in out
    assert "Nothing is protected yet" in on_pr("plan", repo, capsys=capsys)
    out = on_pr("check", repo, "--format", "json", capsys=capsys)
    assert json.loads(out)["plan"]["nothing_protected"] is True


def test_a_marker_in_a_file_the_change_does_not_touch_still_protects_something(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    more_epochs(repo, **{"paths.py": 'RUNS = "runs/v3"  # NO_REFAC\n'})
    out = on_pr("check", repo, capsys=capsys)
    assert out.startswith("gradgate passed: no regression found")
    assert "nothing is protected" not in out.lower()


def test_the_rerun_hint_repeats_the_options_and_the_footer_names_the_config_in_the_repo(
    zoned: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    zoned.write("ci/gate policy.yml", POLICY)
    zoned.write("src/pkg/model.py", "class Net:\n    x = 1\n")
    zoned.commit("edit")
    monkeypatch.chdir(zoned.root.parent)
    config = zoned.root / "ci" / "gate policy.yml"  # absolute, as a runner would pass it
    _, out, _ = run(
        "check", "--repo", zoned.root.name, "--base", "main", "--head", "pr",
        "--config", str(config), "--only", "protected",
        capsys=capsys,
    )  # fmt: skip
    hint = next(line for line in out.splitlines() if line.startswith("Re-run with"))
    assert hint == (
        f"Re-run with `gradgate check --base main --head pr --repo {zoned.root.name} "
        f"--config '{zoned.root.name}/ci/gate policy.yml' --only protected`."
    )
    footer = out.rstrip().splitlines()[-1]
    assert footer.endswith("(--config ci/gate policy.yml)")
    assert str(zoned.root) not in out  # no absolute path of the machine that ran it


def test_a_config_outside_the_repo_is_named_by_its_file_name_only(
    zoned: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "elsewhere" / "team.yml"
    policy.parent.mkdir()
    policy.write_text(POLICY, encoding="utf-8")
    zoned.write("train.py", "x = 1\n")
    zoned.commit("edit")
    _, out, _ = run(
        "check", "--repo", str(zoned.root), "--base", "main", "--head", "pr",
        "--config", str(policy),
        capsys=capsys,
    )  # fmt: skip
    assert out.rstrip().endswith("(--config team.yml, outside the repository)")


def test_json_formats_put_an_error_object_on_stdout_when_gradgate_cannot_decide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_repo = str(tmp_path)
    for command in ("plan", "check"):
        code, out, err = run(
            command, "--repo", not_a_repo, "--base", "main", "--format", "json", capsys=capsys
        )
        assert code == 2
        data = json.loads(out)
        assert data["verdict"] == "error"
        assert data["error"] and "Traceback" not in err


def test_a_reader_that_closes_the_pipe_early_ends_quietly() -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "0"}
    done = subprocess.run(
        f"{sys.executable} -m gradgate.bot schema | head -1",
        shell=True,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert done.stdout == "{\n"
    assert done.stderr == ""  # not "internal error … a bug in gradgate", no traceback
    status = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {sys.executable} -m gradgate.bot schema | head -c 1"],
        capture_output=True,
        text=True,
    )
    assert status.returncode == 0, status.stderr
