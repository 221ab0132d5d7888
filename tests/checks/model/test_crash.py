"""A model that crashes because its code is broken is an error in lines a user reads (issue 19):
the exception and the user's frame as `file:line` first, then the frames; never the child's
temp paths or Python's `^^^^` marks. A module that cannot be imported says to pass `--python`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import SandboxError
from gradgate.checks.model.crash import crash_text
from gradgate.checks.model.run import run_model_program
from gradgate.checks.model.spec import ModelSpec

from tests.checks.model.test_run import NET, SETTINGS, inspect, write

SWAPPED = """\
import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        logits = self.fc(x)
        targets = torch.tensor([0, 1])
        return F.cross_entropy(targets, logits)


def build():
    return Net(), torch.randn(2, 4)
"""


def crashed(root: Path, spec: ModelSpec, **kwargs: object) -> list[str]:
    with pytest.raises(SandboxError) as caught:
        inspect(root, spec, **kwargs)  # type: ignore[arg-type]
    return str(caught.value).split("\n")


def test_a_loss_called_with_swapped_arguments_is_the_exception_then_the_users_frame(
    tmp_path: Path,
) -> None:
    root = write(tmp_path / "repo", {"net.py": SWAPPED})
    line = SWAPPED.splitlines().index("        return F.cross_entropy(targets, logits)") + 1

    lines = crashed(root, ModelSpec(entrypoint="net:build"))

    assert lines[0].startswith("`net:build` at head raised ")
    assert lines[0].endswith(f" (at `net.py:{line}`, in `forward`)")
    assert lines[1] == "Where it happened (most recent call last):"
    at = lines.index(f"  net.py:{line}, in forward")
    assert lines[at + 1] == "      return F.cross_entropy(targets, logits)"
    assert any(row.startswith("  torch/nn/functional.py:") for row in lines)
    assert str(tmp_path) not in "\n".join(lines)
    assert not any(row.strip().startswith("^") for row in lines)


def test_a_users_package_that_is_not_installed_says_to_pass_python(tmp_path: Path) -> None:
    source = "import gradgate_test_pkg_nobody_installed\n" + NET + "\n\ndef build():\n"
    root = write(tmp_path / "repo", {"net.py": source + "    return Net()\n"})

    lines = crashed(root, ModelSpec(entrypoint="net:build"))

    assert "No module named 'gradgate_test_pkg_nobody_installed'" in lines[0]
    assert f"cannot be imported by `{sys.executable}`" in lines[0]
    assert "pass `--python` (or set `python:` in .gradgate.yml)" in lines[0]


def test_an_interpreter_without_torch_says_to_pass_python(tmp_path: Path) -> None:
    bare = tmp_path / "bare"  # a virtual environment with nothing installed
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = str(bare / "bin" / "python")
    root = write(tmp_path / "repo", {"net.py": NET + "\n\ndef build():\n    return Net()\n"})
    spec = ModelSpec(entrypoint="net:build")
    ctx = CheckContext(
        base_sha="a" * 40, head_sha="b" * 40, changes=(), source=None,  # type: ignore[arg-type]
        settings=SETTINGS, python=python, model=spec,
    )  # fmt: skip

    with pytest.raises(SandboxError) as caught:
        run_model_program(
            ctx, SETTINGS, spec=spec, root=root, revision="base",
            program="model.child:inspect_model",
        )  # fmt: skip

    first = str(caught.value).split("\n")[0]
    assert "No module named 'torch'" in first
    assert f"`torch` cannot be imported by `{python}`" in first and "pass `--python`" in first


def test_crash_text_keeps_a_message_without_a_traceback() -> None:
    said = "`net:build` at head exited with code 3 before returning a result."

    assert crash_text(said, roots=(Path("/t"),), python="py") == said
