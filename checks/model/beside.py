"""The config's folder as user code sees it: the folder itself, or copies of the factory it names.

A config given with `--config` may name a factory beside it (`gradgate_model.py:build`), and the
model checks show that folder to the child. When the folder holds the source repository (an
uncommitted `.gradgate.yml` and factory in the working tree: trying gradgate before committing
anything) it cannot be shown: the child would see the repository and everything in it. The
factory files the spec names are then copied into a folder of their own, at the same relative
paths, and the child sees that folder instead. The same folder serves both revisions, so the
factory is the same at base and at head; the model code it imports comes from each revision.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from gradgate.checks.sandbox import bwrap, rundir
from gradgate.checks.sandbox.outcome import parse_target


@contextlib.contextmanager
def config_folder(
    config_dir: Path | None, entrypoint: str | None, *, root: Path
) -> Iterator[Path | None]:
    """``config_dir`` when the child may see it (or None: no --config); otherwise a temporary
    folder holding copies of the files of ``entrypoint`` found in it, removed on exit."""
    if config_dir is None or bwrap.exposable(str(config_dir), rundir.secret_places(root)):
        yield config_dir
        return
    with tempfile.TemporaryDirectory(prefix="gradgate-config-") as staged:
        for relative in _factory_files(entrypoint, config_dir):
            target = Path(staged) / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(config_dir / relative, target)
        yield Path(staged)


def _factory_files(entrypoint: str | None, config_dir: Path) -> list[Path]:
    """The files of the entrypoint that lie in ``config_dir``: a file target, or a module target's
    module (`pkg/mod.py`, or `pkg/mod/__init__.py`) with the package files above it."""
    if entrypoint is None:
        return []
    target = parse_target(entrypoint)
    if target.path is not None:
        candidates = [Path(target.path)]
    else:
        assert target.module is not None
        parts = target.module.split(".")
        module = Path(*parts)
        candidates = [module.with_suffix(".py"), module / "__init__.py"]
        candidates += [Path(*parts[:i], "__init__.py") for i in range(1, len(parts))]
    base = config_dir.resolve()
    found = []
    for relative in candidates:
        if relative.is_absolute() or ".." in relative.parts:
            continue  # outside the folder: shown, or refused, as it is
        path = (config_dir / relative).resolve()
        if path.is_file() and not path.is_symlink() and path.is_relative_to(base):
            found.append(relative)
    return found
