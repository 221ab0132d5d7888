"""The sandbox runs user code with the user's interpreter, which need not have gradgate."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.run import SandboxLimits, child_modules, run_in_sandbox

from tests.interpreters import find_python

ROOT = Path(__file__).parent / "targets"
CHECKS = Path(__file__).resolve().parents[3] / "checks"
LIMITS = SandboxLimits(timeout_s=60, memory_mb=2048)


def report_under(python: str) -> dict[str, object]:
    value = run_in_sandbox(
        "userpkg.behaviours:report_environment", root=ROOT, python=python, limits=LIMITS
    )
    assert isinstance(value, dict)
    return value


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment of the base interpreter with nothing installed: no gradgate."""
    where = tmp_path_factory.mktemp("venv") / "bare"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


def test_a_venv_without_gradgate_runs_the_target_and_cannot_import_gradgate(
    bare_venv: Path,
) -> None:
    value = report_under(str(bare_venv))
    assert value["executable"] == str(bare_venv)
    assert value["gradgate_importable"] is False
    assert value["sys_path"][0] == value["cwd"]  # type: ignore[index]


def test_python_3_9_runs_the_child_side_modules() -> None:
    python = find_python("3.9")
    if python is None:
        pytest.skip("no python3.9 on PATH")
    value = report_under(python)
    assert value["python"] == [3, 9]
    assert value["gradgate_importable"] is False


@pytest.mark.parametrize("version", ["3.8", "3.7", "3.6"])
def test_an_interpreter_older_than_3_9_is_refused_with_advice(version: str) -> None:
    python = find_python(version)
    if python is None:
        pytest.skip(f"no python{version} on PATH")
    with pytest.raises(SandboxError) as caught:
        report_under(python)
    assert caught.value.kind == "protocol"
    assert f"Python {version}" in str(caught.value)
    assert "needs Python 3.9 or newer" in str(caught.value)
    assert "--python" in str(caught.value)


def test_an_interpreter_that_does_not_exist_is_a_crash_naming_it(tmp_path: Path) -> None:
    missing = str(tmp_path / "no" / "python")
    with pytest.raises(SandboxError) as caught:
        report_under(missing)
    assert caught.value.kind == "crash"
    assert missing in str(caught.value)


# --- what the child side may import --------------------------------------------------------

_ALLOWED_THIRD_PARTY = {"torch", "numpy"}  # numpy only through torch's own optional use


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_child_side_modules_are_found() -> None:
    assert Path("sandbox/child/__init__.py") in child_modules()


@pytest.mark.parametrize("module", child_modules(), ids=str)
def test_child_side_modules_import_only_the_standard_library_and_torch(module: Path) -> None:
    outside = {
        name
        for name in _imports(CHECKS / module) - _ALLOWED_THIRD_PARTY
        if name not in sys.stdlib_module_names and name != "__future__"
    }
    assert not outside, f"{module} imports {sorted(outside)}; the child has only stdlib and torch"
