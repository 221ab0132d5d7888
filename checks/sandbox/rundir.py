"""A run's private folder: the export of the revision's tree, the child's code, HOME and /tmp.

    run/tree/     under bubblewrap, a copy of the revision's tree without any `.git`: the
                  child's cwd, writable, shown at the tree's own path
    run/home/     the child's empty HOME
    run/tmp/      the child's empty TMPDIR (/tmp under bubblewrap)
    run/request.json

Beside it, made once per process and shown to every run read-only (``child_package``): a
folder with gradgate's child-side modules as the package `_gradgate_child`.

The tree is copied, not linked: a checkout's `.git` is a file that points into the real
repository, whose config may hold a token (actions/checkout leaves one in
`http.<url>.extraheader`), and whatever the child writes must stay in its copy.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gradgate.checks.sandbox.child import PACKAGE

CHECKS = Path(__file__).resolve().parent.parent  # the folder of gradgate.checks


@dataclass(frozen=True, slots=True)
class RunDir:
    path: Path

    @property
    def tree(self) -> Path:
        return self.path / "tree"

    @property
    def home(self) -> Path:
        return self.path / "home"

    @property
    def tmp(self) -> Path:
        return self.path / "tmp"

    @property
    def request(self) -> Path:
        return self.path / "request.json"


def child_modules() -> list[Path]:
    """Every child-side module of gradgate.checks (a ``child.py``, or any module in a ``child/``
    package), relative to the folder of gradgate.checks."""
    return sorted(
        relative
        for relative in (path.relative_to(CHECKS) for path in CHECKS.rglob("*.py"))
        if relative.name == "child.py" or "child" in relative.parent.parts
    )


def prepare(run: RunDir, *, root: Path, request: str, copy: bool) -> None:
    """Fill the run's empty folder for one run of user code on the tree at ``root``; ``copy``:
    with a copy of the tree (process-level isolation runs in the tree itself: a copy would
    hide nothing from code that can read the whole machine)."""
    for folder in (run.home, run.tmp):
        folder.mkdir()
    if copy:
        # symlinks stay links: one that points outside the tree leads nowhere under bubblewrap.
        shutil.copytree(root, run.tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    run.request.write_text(request, encoding="utf-8")


_made: list[Path] = []


def child_package() -> Path:
    """A folder holding gradgate's child-side modules as the package `_gradgate_child`: the
    same for every run of this process (made again if something removed it), removed at exit."""
    if _made and (_made[0] / PACKAGE).is_dir():
        return _made[0]
    lib = Path(tempfile.mkdtemp(prefix="gradgate-child-"))
    _copy_child_package(lib)
    lib.chmod(0o755)  # mkdtemp's 0700 would hide it from a child of another uid
    if not _made:
        atexit.register(_remove_child_packages)
    _made.insert(0, lib)
    return lib


def _remove_child_packages() -> None:
    for lib in _made:
        shutil.rmtree(lib, ignore_errors=True)


def _copy_child_package(lib: Path) -> None:
    """``lib/_gradgate_child/``: the child-side modules, with empty package files around them."""
    package = lib / PACKAGE
    for relative in child_modules():
        target = package / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CHECKS / relative, target)
        for folder in [target.parent, *target.parent.parents]:
            if folder == lib:
                break
            (folder / "__init__.py").touch()


def git_dirs(root: Path) -> list[Path]:
    """The repository folders behind ``root``'s `.git` (a folder, or a worktree's file that
    names its git dir, whose `commondir` names the main one): never shown to the child."""
    dot_git = root / ".git"
    found: list[Path] = []
    if dot_git.is_dir():
        found.append(dot_git)
    elif dot_git.is_file():
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            git_dir = (root / text.partition(":")[2].strip()).resolve()
            found.append(git_dir)
            common = git_dir / "commondir"
            if common.is_file():
                found.append((git_dir / common.read_text().strip()).resolve())
    return found


def secret_places(root: Path) -> list[Path]:
    """Folders no bind mount may expose (nor any folder that holds one): the tree's source, its
    repository, and gradgate's HOME (credentials, ssh keys, git config)."""
    home = os.path.expanduser("~")
    places = [root, *git_dirs(root)]
    if home not in ("", "/"):
        places.append(Path(home))
    return [p.resolve() for p in places]
