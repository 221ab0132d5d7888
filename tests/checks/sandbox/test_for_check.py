"""run_user_code: a check's context and settings reach the sandbox."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from gradgate.checks.base import UserCodeSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.for_check import run_user_code

ROOT = Path(__file__).parent / "targets"


def test_the_checks_interpreter_memory_cap_and_allowed_variables_reach_the_child(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WANDB_MODE", "offline")
    settings = UserCodeSettings(memory_mb=512, env_allow=("WANDB_MODE",), timeout_s=30.0)
    ctx = CheckContext(
        base_sha="a" * 40, head_sha="b" * 40, changes=(), source=None,  # type: ignore[arg-type]
        settings=settings, python=sys.executable,
    )  # fmt: skip
    value = run_user_code(
        ctx, settings, target="userpkg.behaviours:report_environment", root=ROOT, revision="head"
    )
    assert value["rlimit_as"] == 512 << 20
    assert value["env"]["WANDB_MODE"] == "offline"
    assert value["executable"] == sys.executable


def context(sandbox: str = "auto") -> CheckContext:
    return CheckContext(
        base_sha="a" * 40, head_sha="b" * 40, changes=(), source=None,  # type: ignore[arg-type]
        settings=UserCodeSettings(), sandbox=sandbox,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.mark.parametrize("network", [False, True])
def test_each_run_is_recorded_on_the_context_with_the_checks_network_setting(
    network: bool, bubblewrap: str
) -> None:
    ctx = context()
    settings = UserCodeSettings(network=network, timeout_s=30.0)
    for revision in ("base", "head"):
        run_user_code(ctx, settings, target="userpkg.behaviours:returns_kwargs", root=ROOT,
                      revision=revision)  # fmt: skip
    assert [(i.sandbox, i.network) for i in ctx.isolations] == [("bubblewrap", network)] * 2


def test_the_contexts_sandbox_mode_reaches_the_sandbox(no_bwrap: None) -> None:
    with pytest.raises(SandboxError) as caught:
        run_user_code(
            context("require"),
            UserCodeSettings(),
            target="userpkg.behaviours:returns_kwargs",
            root=ROOT,
            revision="head",
        )
    assert caught.value.kind == "sandbox"


def test_folders_the_check_shows_reach_the_sandbox_read_only(
    tmp_path: Path, bubblewrap: str
) -> None:
    settings = UserCodeSettings(timeout_s=30.0)
    weights = tmp_path / "weights.txt"
    weights.write_text("w")
    path = str(weights)
    written = run_user_code(context(), settings, target="userpkg.behaviours:writes_file",
                            root=ROOT, revision="base", kwargs={"path": path, "text": "x"},
                            readable=[tmp_path])  # fmt: skip
    read = run_user_code(context(), settings, target="userpkg.behaviours:reads_file",
                         root=ROOT, revision="head", kwargs={"path": path},
                         readable=[tmp_path])  # fmt: skip
    assert (written, read, weights.read_text()) == ("not written: OSError", "w", "w")
