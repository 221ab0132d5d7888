"""checks.model.run: the model at one revision, built in a real sandbox child from its spec.

Each test writes a tiny model repo (and sometimes a config folder outside it) and runs the
`model.child:inspect_model` program there, as the model checks run theirs.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import ModelError, SandboxError
from gradgate.checks.model.run import cuda_works, entry_target, run_model_program
from gradgate.checks.model.settings import ModelCheckSettings
from gradgate.checks.model.spec import ModelSpec

SETTINGS = ModelCheckSettings(timeout_s=60.0, memory_mb=2048)
NET = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.body = nn.Linear(4, width)
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def inspect(
    root: Path, spec: ModelSpec, *, config_dir: Path | None = None, device: str = "cpu"
) -> Any:
    ctx = CheckContext(
        base_sha="a" * 40, head_sha="b" * 40, changes=(), source=None,  # type: ignore[arg-type]
        settings=SETTINGS, python=sys.executable, model=spec, config_dir=config_dir,
    )  # fmt: skip
    return run_model_program(
        ctx, SETTINGS, spec=spec, root=root, revision="head",
        program="model.child:inspect_model", device=device,
    )  # fmt: skip


def test_a_file_entrypoint_in_the_revision_builds_the_model_and_its_batch(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {
        "net.py": NET,
        "tools/factory.py": "import torch\nfrom net import Net\n\n"
                            "def build():\n    return Net(), torch.randn(3, 4)\n",
    })  # fmt: skip

    value = inspect(root, ModelSpec(entrypoint="tools/factory.py:build"))

    assert value["model"] == "net.Net"
    assert value["parameters"] == 4 * 8 + 8 + 8 * 2 + 2
    assert (value["inputs_from"], value["args"], value["outputs"]) == ("factory", [[3, 4]], [3, 2])
    assert value["training"] and value["deterministic"]
    assert value["sys_path"][0] == str(root.resolve())


def test_a_factory_beside_an_outside_config_imports_the_model_from_the_revision(
    tmp_path: Path,
) -> None:
    root = write(tmp_path / "repo", {"net.py": NET})
    outside = write(tmp_path / "gradgate-config", {
        "factory.py": "import torch\nfrom net import Net\n\n"
                      "def build():\n    return Net(width=16), torch.randn(2, 4)\n",
        "helpers.py": "import torch\nfrom net import Net\n\ndef build():\n"
                      "    return {'model': Net(width=3), 'inputs': torch.randn(1, 4)}\n",
    })  # fmt: skip

    by_path = inspect(root, ModelSpec(entrypoint="factory.py:build"), config_dir=outside)
    by_module = inspect(root, ModelSpec(entrypoint="helpers:build"), config_dir=outside)

    assert by_path["parameters"] == 4 * 16 + 16 + 16 * 2 + 2
    assert by_module["parameters"] == 4 * 3 + 3 + 3 * 2 + 2
    # The revision's root stays first, so `from net import Net` finds the revision's model.
    assert by_module["sys_path"][:2] == [str(root.resolve()), str(outside)]


def test_an_entrypoint_in_the_revision_wins_over_one_beside_the_config(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"factory.py": "def build(): pass\n"})
    outside = write(tmp_path / "cfg", {"factory.py": "def build(): pass\n"})

    spec = ModelSpec(entrypoint="factory.py:build")
    assert entry_target(spec, root=root, config_dir=outside) == "factory.py:build"
    assert entry_target(spec, root=tmp_path, config_dir=outside) == f"{outside}/factory.py:build"
    assert entry_target(spec, root=tmp_path, config_dir=None) == "factory.py:build"


def test_a_build_spec_needs_no_python_of_the_users_own(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"net.py": NET})
    spec = ModelSpec(
        build={"_target_": "net.Net", "width": 5},
        inputs={"_target_": "torch.randn", "_args_": [7, 4]},
    )

    value = inspect(root, spec)

    assert (value["model"], value["inputs_from"], value["outputs"]) == ("net.Net", "config", [7, 2])


def test_a_model_without_inputs_is_an_error_that_says_how_to_give_them(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"net.py": NET + "\n\ndef build():\n    return Net()\n"})

    with pytest.raises(ModelError) as caught:
        inspect(root, ModelSpec(entrypoint="net:build"))

    message = str(caught.value)
    assert caught.value.code == "no-inputs" and caught.value.revision == "head"
    assert message.startswith("`net:build` at head gave a model (net.Net) but no inputs")
    assert "example_input_array" in message and "`inputs:`" in message


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_device_cuda_without_cuda_is_an_error_not_a_cpu_run(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"net.py": NET + "\n\ndef build():\n    return Net()\n"})

    with pytest.raises(ModelError) as caught:
        inspect(root, ModelSpec(entrypoint="net:build"), device="cuda")

    assert caught.value.code == "no-cuda"
    assert f"torch {torch.__version__}" in str(caught.value)
    assert "cannot use CUDA" in str(caught.value) and "`device: auto`" in str(caught.value)


def test_a_factory_that_raises_is_a_sandbox_error_naming_the_revision(tmp_path: Path) -> None:
    root = write(
        tmp_path / "repo", {"net.py": NET + "\n\ndef build():\n    raise KeyError('n_embd')\n"}
    )

    with pytest.raises(SandboxError) as caught:
        inspect(root, ModelSpec(entrypoint="net:build"))

    assert caught.value.kind == "exception" and caught.value.revision == "head"
    assert "`net:build` at head raised KeyError: 'n_embd'" in str(caught.value)


def test_asking_whether_cuda_works_runs_torch_in_the_users_interpreter(tmp_path: Path) -> None:
    ctx = CheckContext(
        base_sha="a" * 40, head_sha="b" * 40, changes=(), source=None,  # type: ignore[arg-type]
        settings=SETTINGS, python=sys.executable,
    )  # fmt: skip

    assert cuda_works(ctx, SETTINGS, root=tmp_path) is torch.cuda.is_available()
    # An interpreter that cannot even be asked is "no": the real run then names the problem.
    nowhere = replace(ctx, python=str(tmp_path / "no" / "python"))
    assert cuda_works(nowhere, SETTINGS, root=tmp_path) is False
