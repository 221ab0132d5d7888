"""Packaging: one `gradgate` namespace in the user's environment, beside their own bot/checks."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.once import once

REPO = Path(__file__).resolve().parents[1]
FOLDERS = {"bot": "gradgate.bot", "checks": "gradgate.checks", "examples": "gradgate.examples"}


def _pyproject() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_folder_is_listed_and_mapped_into_the_gradgate_namespace() -> None:
    setuptools = _pyproject()["tool"]["setuptools"]  # type: ignore[index]
    found = {
        ".".join([FOLDERS[init.relative_to(REPO).parts[0]], *init.relative_to(REPO).parts[1:-1]])
        for folder in FOLDERS
        for init in (REPO / folder).rglob("__init__.py")
        if folder != "examples" or init.parent == REPO / "examples"  # examples: data inside
    }
    assert set(setuptools["packages"]) == found
    assert setuptools["package-dir"] == {name: folder for folder, name in FOLDERS.items()}


def _run(
    *argv: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done


def _wheel(project: Path, into: Path) -> Path:
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", into, project)  # fmt: skip
    (wheel,) = into.glob(f"{project.name if project != REPO else 'gradgate'}-*.whl")
    return wheel


def _user_project(root: Path) -> Path:
    """A user's own distribution with top-level packages named `checks` and `bot`."""
    project = root / "userproj"
    for package, name in (("checks", "USER_CHECK"), ("bot", "USER_BOT")):
        (project / package).mkdir(parents=True)
        (project / package / "__init__.py").write_text(f"{name} = 'mine'\n")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=70.1"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "userproj"\nversion = "1.0"\n'
        '[tool.setuptools]\npackages = ["checks", "bot"]\n'
    )
    return project


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """gradgate's wheel and a user project's, built once per test run (the tests only read them)."""

    def build(where: Path) -> tuple[Path, Path]:
        return _wheel(REPO, where), _wheel(_user_project(where), where)

    return once(tmp_path_factory, "wheels", build)


def test_the_wheel_holds_only_the_gradgate_namespace(wheels: tuple[Path, Path]) -> None:
    names = zipfile.ZipFile(wheels[0]).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"gradgate", next(t for t in tops if t.endswith(".dist-info"))}
    assert "gradgate/__init__.py" not in names  # an implicit namespace package
    for expected in ("gradgate/bot/doors/cli/__init__.py",
                     "gradgate/checks/sandbox/child/__init__.py",
                     "gradgate/bot/templates/comment.md.j2",
                     "gradgate/examples/tiny-classifier/base/.gradgate.yml"):  # fmt: skip
        assert expected in names


def test_installed_beside_a_users_bot_and_checks_both_work_and_uninstall_keeps_theirs(
    wheels: tuple[Path, Path], tmp_path: Path
) -> None:
    gradgate_wheel, user_wheel = wheels
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    _run(base, "-m", "venv", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--no-index", user_wheel)
    # gradgate's own requirements come from the index (or pip's cache).
    _run(python, "-m", "pip", "install", "-q", gradgate_wheel)
    user_import = "from checks import USER_CHECK; from bot import USER_BOT; print(USER_CHECK)"

    assert _run(python, "-c", user_import, cwd=tmp_path).stdout.strip() == "mine"
    # The fresh venv has no torch: the demo says what to install instead of a traceback...
    bare = subprocess.run(
        [venv / "bin" / "gradgate", "demo"], cwd=tmp_path, capture_output=True, text=True,
        timeout=600, env={k: v for k, v in os.environ.items() if k != "GRADGATE_PYTHON"},
    )  # fmt: skip
    assert bare.returncode == 2 and "-m pip install 'torch==2.13.0'" in bare.stderr
    # ...and runs the example's model under an interpreter that has torch (this one).
    with_torch = {**os.environ, "GRADGATE_PYTHON": sys.executable}
    demo = _run(venv / "bin" / "gradgate", "demo", cwd=tmp_path, env=with_torch)
    assert "gradgate failed" in demo.stdout
    assert "`proj.*` (2 parameters) learned at base and are detached at head" in demo.stdout

    _run(python, "-m", "pip", "uninstall", "-q", "-y", "gradgate")
    assert _run(python, "-c", user_import, cwd=tmp_path).stdout.strip() == "mine"
    site = _run(python, "-c", "import checks; print(checks.__file__)", cwd=tmp_path).stdout
    assert Path(site.strip()).read_text() == "USER_CHECK = 'mine'\n"
