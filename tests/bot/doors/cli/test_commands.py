"""The `gradgate` command end to end on real git repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
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
EDITED = TRAIN.replace("runs/v3", "runs/v4")  # the protected line, edited


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


# A pull request (its files at base on main, then at head on `pr`), `check`'s other arguments,
# and what the user is told: the exit code, and words the report holds.
BASE = {".gradgate.yml": POLICY, "train.py": TRAIN}
TOLD = {
    "an-untouched-protected-line-passes-with-exit-0": (
        BASE, {"train.py": TRAIN.replace("EPOCHS = 3", "EPOCHS = 5")}, (), 0, ["gradgate passed"]
    ),
    "an-edited-protected-line-fails-with-exit-1-naming-file-and-line": (
        BASE, {"train.py": EDITED}, (), 1, ["train.py:1", "NO_REFAC"]
    ),
    "a-pr-cannot-loosen-its-own-gate": (
        BASE,
        {".gradgate.yml": POLICY + "checks:\n  protected:\n    markers: [NOTHING]\n",
         "train.py": EDITED},
        (), 1, ["takes effect after merge"],
    ),
    "the-pr-that-adopts-gradgate-is-gated-by-its-own-config": (
        {"train.py": TRAIN}, {".gradgate.yml": POLICY}, (), 0,
        ["policy came from the change itself"],
    ),
    "the-adopting-pr-cannot-switch-protection-off-for-itself": (
        {"train.py": TRAIN},
        {".gradgate.yml": "always: []\nchecks:\n  protected:\n    markers: [NOTHING]\n",
         "train.py": EDITED},
        (), 1,
        ["train.py:1", "NO_REFAC",
         "the built-in `always: [protected]` and its markers still apply"],
    ),
    "a-bad-config-at-base-is-exit-2-naming-key-and-line": (
        {".gradgate.yml": "zones:\n  - name: m\n    pathz: [x]\n"}, {"a.py": "x = 1\n"}, (), 2,
        [".gradgate.yml at base", ":3:", "pathz"],
    ),
    "only-a-check-the-change-does-not-require-is-an-error-with-advice": (
        BASE, {"train.py": EDITED}, ("--only", "gradient"), 2,
        ["gradgate could not decide", "--only `gradient`: this change does not require it",
         "gradgate plan"],
    ),
}  # fmt: skip


@pytest.mark.parametrize(("base", "head", "args", "code", "words"), TOLD.values(), ids=TOLD)
def test_a_pull_request_gets_its_exit_code_and_words(
    repo: GitRepo,
    capsys: pytest.CaptureFixture[str],
    base: dict[str, str],
    head: dict[str, str],
    args: tuple[str, ...],
    code: int,
    words: list[str],
) -> None:
    repo.pull_request(base, head)
    got, out, _ = gate(repo, *args, capsys=capsys)
    assert got == code, out
    for said in words:
        assert said in out


def test_json_format_is_machine_readable(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    project.commit("move runs")
    code, out, _ = gate(project, "--format", "json", capsys=capsys)
    data = json.loads(out)
    assert (code, data["verdict"]) == (1, "failure")
    assert data["head_sha"] == project.git("rev-parse", "pr")


def test_a_config_that_is_a_symlink_in_git_is_refused(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("policy.yml", POLICY)
    (repo.root / ".gradgate.yml").symlink_to("policy.yml")
    repo.write("train.py", TRAIN)
    repo.commit("base")
    repo.branch("pr")
    repo.write("train.py", TRAIN + "X = 1\n")
    repo.commit("change")
    code, out, _ = gate(repo, capsys=capsys)
    assert code == 2
    assert ".gradgate.yml at base" in out and "it is a symbolic link in git" in out


def test_a_base_config_that_is_not_utf8_is_an_error_not_the_defaults(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".gradgate.yml", "# caf\xe9\nalways: []\n".encode("latin-1"))
    repo.write("train.py", TRAIN)
    repo.commit("base")
    repo.branch("pr")
    repo.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    repo.commit("change")
    code, out, _ = gate(repo, "--format", "json", capsys=capsys)
    data = json.loads(out)
    assert (code, data["verdict"]) == (2, "error")
    assert "not UTF-8 text (byte 5)" in data["error"]
    assert data["error"].startswith(".gradgate.yml at base")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "symlink", "directory", "huge"])
def test_a_config_file_that_is_not_a_plain_small_file_is_refused_quickly(
    project: GitRepo, tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    target = tmp_path / "policy.yml"
    if kind == "fifo":
        os.mkfifo(target)  # nothing ever writes: reading it would block for ever
    elif kind == "dev-zero":
        target = Path("/dev/zero")
    elif kind == "symlink":
        (tmp_path / "real.yml").write_text(POLICY)
        target.symlink_to(tmp_path / "real.yml")
    elif kind == "directory":
        target.mkdir()
    else:
        target.write_text("# padding\n" * 200_000)
    project.write("train.py", TRAIN + "X = 1\n")
    project.commit("change")
    code, out, _ = gate(project, "--config", str(target), capsys=capsys)
    assert code == 2
    expected = {
        "fifo": "not a regular file",
        "dev-zero": "not a regular file",
        "symlink": "it is a symbolic link; name the file it points to",
        "directory": "it is a directory",
        "huge": "over gradgate's 1 MB limit for a config",
    }[kind]
    assert f"{target}: invalid config: " in out and expected in out


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


def test_unknown_revision_is_exit_2_with_a_message_not_a_traceback(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", "--repo", str(project.root), "--base", "nope", "--head", "pr"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "nope" in out and "Traceback" not in out + err


def test_only_runs_the_named_check(project: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    project.write("train.py", TRAIN.replace("EPOCHS = 3", "EPOCHS = 5"))
    project.commit("more epochs")
    code, out, _ = gate(project, "--only", "protected", "--format", "json", capsys=capsys)
    outcomes = {c["name"]: c["outcome"] for c in json.loads(out)["checks"]}
    assert outcomes == {
        "protected": "pass",
        "gradient": "skipped",
        "checkpoint": "skipped",
        "behaviour": "skipped",
        "data": "skipped",
        "config-docs": "skipped",
        "api-contract": "skipped",
        "dl-lint": "skipped",
        "metrics": "skipped",
        "perf": "skipped",
        "commands": "skipped",
    }
    assert code == 0


def test_default_base_that_is_the_head_itself_is_an_error_with_advice(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.checkout("main")
    code = main(["check", "--repo", str(project.root)])
    _, err = capsys.readouterr()
    assert code == 2
    assert "the default base `main` is the head `HEAD` itself" in err and "--base" in err


def test_a_head_that_is_an_ancestor_of_the_base_is_an_error_not_a_pass(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.checkout("main")
    project.write("train.py", TRAIN.replace("runs/v3", "runs/v4"))
    project.commit("main moved on")
    code = main(["check", "--repo", str(project.root), "--base", "main", "--head", "pr"])
    out, _ = capsys.readouterr()
    assert code == 2
    assert "the head `pr` is already part of the base `main`" in out
    assert "swap --base and --head" in out


def test_any_unexpected_crash_exits_2_and_says_nothing_was_passed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gradgate.bot.doors.cli as cli

    def crash(_: object) -> int:
        raise ZeroDivisionError("boom")

    monkeypatch.setitem(cli.COMMANDS, "schema", crash)
    assert main(["schema"]) == 2
    err = capsys.readouterr().err
    assert "internal error: ZeroDivisionError: boom" in err and "nothing was passed" in err


def test_a_deep_expression_in_a_changed_file_ends_in_a_report(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("train.py", TRAIN + "x = " + "1+" * 50_000 + "1\n")
    project.commit("deep")
    code, out, err = gate(project, "--format", "json", capsys=capsys)
    data = json.loads(out)
    assert "internal error" not in err
    assert (code, data["verdict"]) == (0, "success")
    (protected,) = [c for c in data["checks"] if c["name"] == "protected"]
    kinds = [f["kind"] for f in protected["findings"]]
    assert kinds == ["protected-parsed-as-text", "zone-touched"]


def test_a_file_name_that_is_not_utf8_ends_in_a_report(
    project: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    (project.root / "caf\xe9.py".encode("latin-1").decode("utf-8", "surrogateescape")).write_bytes(
        b"x = 1  # NO_REFAC\n"
    )
    project.commit("odd name")
    for fmt in ("text", "markdown", "json"):
        code, out, err = gate(project, "--format", fmt, capsys=capsys)
        assert code == 0, err
        assert "internal error" not in err
    assert "caf\\xe9.py" in out or "caf\\udce9.py" in out


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


class _Clock:
    """Stands in for `threading.Timer`: time passes only when the test says so, so a busy
    machine cannot fire a step's timer before the next step replaces it."""

    def __init__(self) -> None:
        self.timers: list[_Clock.Timer] = []

    def __call__(self, interval: float, function: Callable[[], object]) -> _Clock.Timer:
        timer = _Clock.Timer(interval, function)
        self.timers.append(timer)
        return timer

    def advance(self, seconds: float) -> None:
        for timer in self.timers:
            if not timer.cancelled and timer.interval <= seconds:
                timer.cancelled = True
                timer.function()

    class Timer:
        def __init__(self, interval: float, function: Callable[[], object]) -> None:
            self.interval, self.function, self.cancelled = interval, function, False
            self.daemon = False

        def start(self) -> None:
            pass

        def cancel(self) -> None:
            self.cancelled = True


def test_progress_names_only_the_steps_that_are_slow(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from gradgate.bot.doors.cli import output

    clock = _Clock()
    monkeypatch.setattr(output.threading, "Timer", clock)
    stream = io.StringIO()
    with output.progress(stream, after_s=0.2) as step:
        step("reading the diff")
        clock.advance(0.1)  # replaced before its time is up: never printed
        step("running protected")
        clock.advance(0.1)
        assert stream.getvalue() == ""
        clock.advance(0.2)
    clock.advance(60)  # nothing left to say once the run is over
    assert stream.getvalue() == "gradgate: running protected…\n"


def test_deleting_only_a_marker_comment_is_caught_even_without_always(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write(".gradgate.yml", "always: []\n" + POLICY.replace("version: 1\n", ""))
    repo.write("train.py", "# NO_REFAC\nRUNS = 3\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("train.py", "RUNS = 3\n")
    repo.commit("drop the marker: a comment-only change")
    code, out, _ = gate(repo, capsys=capsys)
    assert code == 1, out
    assert "protection removed" in out


def test_control_characters_in_an_error_are_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["plan", "--repo", str(tmp_path / "no\x1b[2Jrepo")])
    err = capsys.readouterr().err
    assert code == 2
    assert "\x1b" not in err and "no\\x1b[2Jrepo" in err


def test_python_comes_from_the_flag_else_gradgate_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gradgate.bot.doors.cli.parser import build_parser as _parser

    monkeypatch.setenv("GRADGATE_PYTHON", "/envs/train/bin/python")
    assert _parser().parse_args(["check"]).python == "/envs/train/bin/python"
    assert _parser().parse_args(["check", "--python", "py3"]).python == "py3"
    monkeypatch.delenv("GRADGATE_PYTHON")
    assert _parser().parse_args(["plan"]).python is None
