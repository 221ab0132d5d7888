"""checks.sandbox.env: credentials never reach user code, nor the process that supervises it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gradgate.checks.errors import CheckError
from gradgate.checks.sandbox.env import (
    CREDENTIALS,
    NEVER_PASSED,
    child_env,
    is_credential,
    without_credentials,
)

# Concrete names, one or more per pattern: dropping a pattern from CREDENTIALS fails a case.
SECRETS = [
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_APP_PRIVATE_KEY",
    "GH_APP_ID",
    "GITHUB_APP_ID",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RUNTIME_URL",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_CACHE_URL",
    "ACTIONS_RESULTS_URL",
    "HF_TOKEN",
    "AWS_SESSION_TOKEN",
    "github_token",  # names are matched whatever their case
    "NPM_TOKEN_FILE",
    "AWS_SECRET_ACCESS_KEY",
    "CLIENT_SECRET",
    "DB_PASSWORD",
    "FTP_PASSWD",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "WANDB_API_KEY",
    "AWS_ACCESS_KEY_ID",
    "SIGNING_PRIVATE_KEY_PEM",
    "SSH_AUTH_SOCK",
    "GIT_ASKPASS",
]
HARMLESS = ["PATH", "HOME", "TOKENIZERS_PARALLELISM", "GITHUB_WORKSPACE", "GRADGATE_PYTHON",
            "AWS_REGION", "CUDA_VISIBLE_DEVICES", "KEYBOARD"]  # fmt: skip


def test_every_credential_pattern_is_exercised_by_a_name_here() -> None:
    # A pattern added to CREDENTIALS must get its case in SECRETS.
    for pattern in CREDENTIALS:
        assert any(is_credential(name, (pattern,)) for name in SECRETS), pattern


@pytest.mark.parametrize("name", SECRETS)
def test_a_credential_is_scrubbed_from_the_supervisors_environment(name: str) -> None:
    env = without_credentials({name: "s3cret", "PATH": "/usr/bin"})
    assert env == {"PATH": "/usr/bin"}


@pytest.mark.parametrize("name", SECRETS)
def test_a_credential_cannot_be_passed_to_user_code_by_env_allow(name: str, tmp_path: Path) -> None:
    with pytest.raises(CheckError, match=name):
        child_env({name: "s3cret"}, home=tmp_path, tmp=tmp_path, device="cpu", env_allow=(name,))


@pytest.mark.parametrize("name", SECRETS)
def test_a_credential_in_the_parent_never_reaches_user_code(name: str, tmp_path: Path) -> None:
    env = child_env({name: "s3cret"}, home=tmp_path, tmp=tmp_path, device="cpu", env_allow=())
    assert name not in env
    assert "s3cret" not in env.values()


@pytest.mark.parametrize("name", HARMLESS)
def test_ordinary_settings_stay_in_the_supervisors_environment(name: str) -> None:
    assert without_credentials({name: "x"}) == {name: "x"}


def test_gradgates_own_settings_stay_with_gradgate_but_never_reach_user_code(
    tmp_path: Path,
) -> None:
    assert "GRADGATE_*" in NEVER_PASSED
    with pytest.raises(CheckError, match="GRADGATE_PYTHON"):
        child_env({}, home=tmp_path, tmp=tmp_path, device="cpu", env_allow=("GRADGATE_PYTHON",))


def test_the_child_gets_exactly_the_allow_list_its_own_names_and_fixed_settings(
    tmp_path: Path,
) -> None:
    """What user code sees, whole: each passed-through name with its value, a name the check's
    `env_allow` adds, gradgate's fixed settings, and nothing else."""
    passed = {
        "PATH": "/opt/env/bin:/usr/bin",
        "LANG": "de_DE.UTF-8",
        "LC_ALL": "de_DE.UTF-8",
        "LC_CTYPE": "UTF-8",
        "TZ": "Europe/Berlin",
        "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
        "CUDA_VISIBLE_DEVICES": "0,1",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "OMP_NUM_THREADS": "4",
        "MKL_NUM_THREADS": "4",
    }
    parent = {**passed, "DATA_ROOT": "/data", "EDITOR": "vim", "MALLOC_ARENA_MAX": "2"}
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    env = child_env(parent, home=home, tmp=tmp, device="cuda:0", env_allow=("DATA_ROOT",))
    assert env == {
        **passed,
        "DATA_ROOT": "/data",
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "GRADGATE_DEVICE": "cuda:0",
    }


def test_a_cpu_child_sees_no_gpu_and_few_malloc_arenas_and_gets_a_path_and_a_locale(
    tmp_path: Path,
) -> None:
    env = child_env(
        {"CUDA_VISIBLE_DEVICES": "0"}, home=tmp_path, tmp=tmp_path, device="cpu", env_allow=()
    )
    assert env["CUDA_VISIBLE_DEVICES"] == ""  # a factory that picks cuda when it can stays on CPU
    assert env["MALLOC_ARENA_MAX"] == "4"
    assert env["PATH"] == os.defpath and env["LANG"] == "C.UTF-8"
    assert env["GRADGATE_DEVICE"] == "cpu"
    # A setting the check's `env_allow` passes is kept: it is the user's to lower.
    kept = child_env(
        {"MALLOC_ARENA_MAX": "1"},
        home=tmp_path,
        tmp=tmp_path,
        device="cpu",
        env_allow=("MALLOC_ARENA_MAX",),
    )
    assert kept["MALLOC_ARENA_MAX"] == "1"


def test_a_refusal_names_every_refused_name_once_in_order(tmp_path: Path) -> None:
    with pytest.raises(CheckError) as refused:
        child_env(
            {}, home=tmp_path, tmp=tmp_path, device="cpu",
            env_allow=("HF_TOKEN", "DATA_ROOT", "AWS_SECRET_ACCESS_KEY"),
        )  # fmt: skip
    assert str(refused.value).startswith(
        "env_allow may not pass AWS_SECRET_ACCESS_KEY, HF_TOKEN to user code"
    )
