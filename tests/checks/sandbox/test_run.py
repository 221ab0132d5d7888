"""checks.sandbox.run: user code runs in a real child process; each way it can fail is named."""

from __future__ import annotations

import math
import os
import signal
import sys
import time
from pathlib import Path

import gradgate.checks as checks
import pytest
from gradgate.checks.errors import CheckError, SandboxError
from gradgate.checks.sandbox.run import (
    Finished,
    SandboxLimits,
    SandboxMode,
    child_env,
    outcome,
    parse_target,
    run_in_sandbox,
)

ROOT = Path(__file__).parent / "targets"
FAST = SandboxLimits(timeout_s=20, memory_mb=1024)
SHORT = SandboxLimits(timeout_s=2, memory_mb=1024)


def run(target: str, **kwargs: object) -> object:
    return run_in_sandbox(f"userpkg.behaviours:{target}", root=ROOT, kwargs=kwargs, limits=FAST)


def failure(target: str, limits: SandboxLimits = FAST, **kwargs: object) -> SandboxError:
    with pytest.raises(SandboxError) as caught:
        run_in_sandbox(target, root=ROOT, kwargs=kwargs, limits=limits, revision="head")
    assert caught.value.revision == "head"
    assert "head" in str(caught.value)
    return caught.value


def is_gone(pid: int, wait_s: float = 3.0) -> bool:
    """Dead or a zombie (which init may not have reaped yet in a container)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


# --- returning values --------------------------------------------------------------------


def test_module_target_returns_the_functions_json_value() -> None:
    assert run("returns_kwargs", lr=0.1, layers=[1, 2]) == {"kwargs": {"lr": 0.1, "layers": [1, 2]}}


def test_dotted_attribute_target_reaches_a_static_method() -> None:
    assert run("Factory.build", n=3) == [0, 1, 2]


def test_file_target_runs_with_its_own_directory_importable() -> None:
    value = run_in_sandbox("scripts/build_model.py:build", root=ROOT, kwargs={"scale": 2})
    assert value == {"width": 32}


def test_nan_is_returned_as_nan_so_gradient_checks_can_report_it() -> None:
    value = run("returns_nan")
    assert isinstance(value, float)
    assert math.isnan(value)


def test_megabytes_of_stdout_neither_block_the_child_nor_hide_the_result() -> None:
    assert run("prints_a_lot", mb=2) == "done"


def test_tiny_torch_model_gives_identical_outputs_for_the_same_seed_in_two_children() -> None:
    pytest.importorskip("torch")  # only checks it is installed; the children import it
    torch_was_imported = "torch" in sys.modules

    def build(seed: int) -> object:
        return run_in_sandbox("userpkg.tiny_model:build", root=ROOT, kwargs={"width": 8}, seed=seed)

    first, second, other_seed = build(0), build(0), build(1)
    assert isinstance(first, dict)
    assert first["parameters"] == 4 * 8 + 8 + 8 + 1
    assert first == second
    assert first["outputs"] != other_seed["outputs"]  # type: ignore[index]
    # The parent never imports the user's torch.
    assert ("torch" in sys.modules) == torch_was_imported


# --- isolation ---------------------------------------------------------------------------


def test_secrets_in_the_parent_environment_never_reach_user_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_fake_token")
    monkeypatch.setenv("GH_APP_PRIVATE_KEY", "-----BEGIN FAKE KEY-----")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    monkeypatch.setenv("WANDB_MODE", "offline")
    value = run_in_sandbox(
        "userpkg.behaviours:report_environment", root=ROOT, env_allow=("WANDB_MODE",)
    )
    env = value["env"]
    assert not {"GITHUB_TOKEN", "GH_APP_PRIVATE_KEY", "AWS_SECRET_ACCESS_KEY"} & env.keys()
    assert "ghs_fake_token" not in repr(env)
    assert env["WANDB_MODE"] == "offline"  # named in env_allow
    assert env["HOME"] != os.environ.get("HOME")
    assert env["PYTHONHASHSEED"] == "0"
    assert env["GRADGATE_DEVICE"] == "cpu"
    assert env["CUDA_VISIBLE_DEVICES"] == ""  # a CPU run cannot wander onto a GPU


@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "GH_APP_PRIVATE_KEY", "GRADGATE_SECRET"])
def test_env_allow_cannot_pass_gradgates_own_credentials(name: str) -> None:
    with pytest.raises(CheckError, match=name):
        run_in_sandbox("userpkg.behaviours:returns_kwargs", root=ROOT, env_allow=(name,))


@pytest.mark.parametrize("sandbox", ["auto", "process"])
def test_child_runs_in_root_first_on_path_and_not_the_parents_tree(sandbox: SandboxMode) -> None:
    # Under bubblewrap `root` holds a copy of the tree: paths mean the same on both sides.
    value = run_in_sandbox("userpkg.behaviours:report_environment", root=ROOT, sandbox=sandbox)
    assert value["cwd"] == str(ROOT.resolve())
    assert {"userpkg", "scripts", "README.md"} <= set(value["tree"])
    assert value["sys_path"][0] == value["cwd"]
    checks_dir = Path(checks.__file__).resolve().parent  # where the child's script lives
    parents = {"", ".", os.getcwd(), str(checks_dir), str(checks_dir.parent)}
    assert not parents & set(value["sys_path"])


def test_memory_cap_is_an_address_space_limit_on_cpu_and_absent_on_cuda() -> None:
    limits = SandboxLimits(timeout_s=20, memory_mb=512)
    target = "userpkg.behaviours:report_environment"
    on_cpu = run_in_sandbox(target, root=ROOT, limits=limits, device="cpu")
    on_cuda = run_in_sandbox(target, root=ROOT, limits=limits, device="cuda:0")
    assert on_cpu["rlimit_as"] == 512 << 20
    assert on_cuda["rlimit_as"] == -1  # RLIM_INFINITY: CUDA needs the address space
    assert on_cuda["env"]["GRADGATE_DEVICE"] == "cuda:0"


def test_child_env_keeps_the_parents_gpu_selection_for_cuda_runs(tmp_path: Path) -> None:
    parent = {"PATH": "/usr/bin", "CUDA_VISIBLE_DEVICES": "2", "AWS_REGION": "x"}
    env = child_env(parent, home=tmp_path, tmp=tmp_path, device="cuda", env_allow=())
    assert env["CUDA_VISIBLE_DEVICES"] == "2"
    assert "MALLOC_ARENA_MAX" not in env
    assert "AWS_REGION" not in env


# --- hangs, memory, crashes --------------------------------------------------------------


def test_a_hang_that_ignores_sigterm_is_killed_at_the_timeout() -> None:
    started = time.monotonic()
    error = failure("userpkg.behaviours:sleeps_forever_ignoring_sigterm", SHORT)
    assert error.kind == "timeout"
    assert "`userpkg.behaviours:sleeps_forever_ignoring_sigterm` at head" in str(error)
    assert "did not finish within 2 s" in str(error)
    assert time.monotonic() - started < 10


def test_allocating_past_the_memory_cap_is_reported_as_memory() -> None:
    limits = SandboxLimits(timeout_s=20, memory_mb=256)
    error = failure("userpkg.behaviours:allocates", limits, mb=2048)
    assert error.kind == "memory"
    assert "ran out of memory (limit 256 MB): MemoryError" in str(error)


def test_torch_failing_to_allocate_past_the_cap_is_reported_as_memory() -> None:
    pytest.importorskip("torch")
    limits = SandboxLimits(timeout_s=30, memory_mb=1536)
    error = failure("userpkg.tiny_model:allocates", limits, mb=4096)
    assert error.kind == "memory"  # torch raises RuntimeError("... can't allocate memory ...")
    assert "RuntimeError" in str(error)


@pytest.mark.parametrize(
    "target", ["userpkg.behaviours:killed_by_sigkill", "userpkg.behaviours:aborts_after_bad_alloc"]
)
def test_a_child_killed_for_memory_is_reported_as_memory(target: str) -> None:
    error = failure(target)
    assert error.kind == "memory"
    assert "out of memory" in str(error)


@pytest.mark.parametrize("target", ["segfaults_by_signal", "segfaults_by_null_read"])
def test_a_segfault_is_a_crash_naming_the_signal(target: str) -> None:
    error = failure(f"userpkg.behaviours:{target}")
    assert error.kind == "crash"
    assert "crashed with SIGSEGV" in str(error)
    assert target in str(error)  # faulthandler's traceback, from the output tail


def test_crash_message_ends_with_the_last_output() -> None:
    error = failure("userpkg.behaviours:segfaults_by_signal")
    assert "Last output:\nabout to crash" in str(error)


@pytest.mark.parametrize(
    ("target", "code"),
    [("userpkg.behaviours:hard_exits", 0), ("userpkg.behaviours:exits", 3)],
)
def test_exiting_before_returning_is_a_crash_with_the_exit_code(target: str, code: int) -> None:
    error = failure(target, code=code)
    assert error.kind == "crash"
    assert f"exited with code {code} before returning a result" in str(error)


def test_a_root_that_does_not_exist_is_a_crash_not_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(SandboxError) as caught:
        run_in_sandbox("userpkg.behaviours:returns_kwargs", root=tmp_path / "missing")
    assert caught.value.kind == "crash"
    assert "could not start a sandbox process" in str(caught.value)


# --- exceptions, imports, output ---------------------------------------------------------


def test_an_exception_names_type_message_and_the_user_code_frames() -> None:
    error = failure("userpkg.behaviours:raises_value_error")
    text = str(error)
    assert error.kind == "exception"
    assert "at head raised ValueError: expected 4 rows, got 3" in text
    assert "behaviours.py" in text
    assert "in raises_value_error" in text
    assert "in _check_shapes" in text
    assert 'raise ValueError(f"expected 4 rows, got {rows}")' in text
    assert "_gradgate_child" not in text  # the child machinery's frames are left out


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("userpkg.nowhere:build", "module `userpkg.nowhere` was not found"),
        ("nopkg.factory:build", "module `nopkg` was not found"),
        ("userpkg.behaviours:build", "`userpkg.behaviours` has no attribute `build`"),
        ("userpkg.behaviours:Factory.make", "`userpkg.behaviours` has no attribute `make`"),
        ("userpkg.behaviours:NOT_CALLABLE", "`NOT_CALLABLE` in `userpkg.behaviours` is not"),
        ("scripts/missing.py:build", "file `scripts/missing.py` does not exist"),
    ],
)
def test_a_missing_target_says_what_to_fix(target: str, expected: str) -> None:
    error = failure(target)
    assert error.kind == "import"
    assert expected in str(error)
    assert str(error).endswith("check `entrypoint` in .gradgate.yml")


def test_a_target_whose_own_import_fails_shows_that_error() -> None:
    error = failure("userpkg.broken:build")
    assert error.kind == "import"
    assert "importing `userpkg.broken` raised ModuleNotFoundError" in str(error)
    assert "a_dependency_that_is_not_installed" in str(error)


@pytest.mark.parametrize(
    "target",
    ["", "userpkg.behaviours", "userpkg.behaviours:", ":build", "user pkg:build", "a.py:1build"],
)
def test_a_malformed_target_is_refused_before_any_process_starts(target: str) -> None:
    with pytest.raises(SandboxError) as caught:
        parse_target(target, revision="base")
    assert caught.value.kind == "import"
    assert caught.value.revision == "base"
    assert "expected `package.module:function` or `path/to/file.py:function`" in str(caught.value)


def test_a_return_value_that_is_not_json_is_an_output_error() -> None:
    error = failure("userpkg.behaviours:returns_object")
    assert error.kind == "output"
    assert "not JSON" in str(error)
    assert "object" in str(error)


def test_a_result_larger_than_the_limit_is_an_output_error() -> None:
    limits = SandboxLimits(timeout_s=20, memory_mb=1024, result_mb=1)
    error = failure("userpkg.behaviours:returns_big", limits, mb=2)
    assert error.kind == "output"
    assert "more than 1 MB" in str(error)


# --- classifying how the child ended (pure) ----------------------------------------------

TARGET = parse_target("model:build")


@pytest.mark.parametrize(
    ("finished", "kind"),
    [
        (Finished(-signal.SIGKILL, b"", ""), "memory"),
        (Finished(-signal.SIGABRT, b"", "what():  std::bad_alloc"), "memory"),
        (Finished(-signal.SIGABRT, b"", "assertion failed"), "crash"),
        (Finished(-signal.SIGSEGV, b'{"ok": tr', ""), "crash"),  # died while writing
        (Finished(0, b"not json", ""), "output"),
        (Finished(0, b'{"protocol": 1, "ok": false}', ""), "output"),
        (Finished(0, b'{"protocol": 99, "ok": true, "value": 1}', ""), "protocol"),
        (Finished(0, b'{"ok": true, "value": 1}', ""), "protocol"),
        (Finished(-signal.SIGKILL, b"", "", timed_out=True), "timeout"),
    ],
)
def test_how_the_child_ended_decides_the_kind(finished: Finished, kind: str) -> None:
    with pytest.raises(SandboxError) as caught:
        outcome(finished, TARGET, revision="base", limits=FAST, capped=True, python="python3")
    assert caught.value.kind == kind


@pytest.mark.parametrize("timeout_s", [0.0, -1.0, math.nan])
def test_limits_refuse_a_timeout_that_could_never_pass(timeout_s: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        SandboxLimits(timeout_s=timeout_s)


def test_a_complete_result_counts_even_if_the_child_crashed_afterwards() -> None:
    finished = Finished(-signal.SIGSEGV, b'{"protocol": 1, "ok": true, "value": 7}', "")
    assert (
        outcome(finished, TARGET, revision="base", limits=FAST, capped=True, python="python3") == 7
    )
