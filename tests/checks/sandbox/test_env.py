"""checks.sandbox.env: credentials never reach user code, nor the process that supervises it."""

from __future__ import annotations

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
