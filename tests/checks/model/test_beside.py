"""checks.model.beside: the config's folder as the child sees it (issue 19, try before commit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradgate.checks.model.beside import config_folder

from tests.gitrepo import GitRepo


def listing(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_a_config_folder_outside_the_repository_is_shown_as_it_is(
    repo: GitRepo, tmp_path: Path
) -> None:
    outside = tmp_path / "team"
    outside.mkdir()
    with config_folder(outside, "f.py:build", root=repo.root) as shown:
        assert shown == outside


@pytest.mark.parametrize(
    ("entrypoint", "copied"),
    [
        ("gradgate_model.py:build", {"gradgate_model.py"}),
        ("tools/factory.py:build", {"tools/factory.py"}),
        ("tools.factory:build", {"tools/factory.py", "tools/__init__.py"}),
        ("../elsewhere.py:build", set()),
    ],
)
def test_the_working_tree_is_never_shown_only_the_factory_files_it_names(
    repo: GitRepo, entrypoint: str, copied: set[str]
) -> None:
    repo.write("model.py", "X = 1\n")
    repo.commit("base")
    for path in ("gradgate_model.py", "tools/factory.py", "tools/__init__.py", ".gradgate.yml"):
        repo.write(path, "def build():\n    return 1\n")
    with config_folder(repo.root, entrypoint, root=repo.root) as shown:
        assert shown is not None and shown != repo.root
        assert not shown.is_relative_to(repo.root)
        assert listing(shown) == copied
    assert not shown.exists()  # removed once the run is over
