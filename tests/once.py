"""Expensive set-up built once per test run, shared by the pytest-xdist workers.

A module-scoped fixture runs once per worker, so on 2 workers a 12 s set-up (a torch child per
revision, the whole demo) is paid twice. ``once`` builds it in a folder under the run's temp
root, which every worker of the run shares, under a file lock: the first worker to come builds
it and stores the value (pickled); the others wait for the lock and read it. Only for set-up
the tests then only read.
"""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import pytest
from filelock import FileLock

T = TypeVar("T")


def run_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temp folder of this test run: under xdist each worker's basetemp is a folder in it."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T]) -> T:
    """``build(folder)``'s value, built once per test run in ``folder`` and shared by workers."""
    root = run_root(tmp_path_factory)
    folder, value = root / f"once-{name}", root / f"once-{name}.pickle"
    with FileLock(str(root / f"once-{name}.lock")):
        if value.exists():
            return cast(T, pickle.loads(value.read_bytes()))
        shutil.rmtree(folder, ignore_errors=True)  # left half-built by a worker whose build failed
        folder.mkdir()
        built = build(folder)
        value.write_bytes(pickle.dumps(built))
        return built
