"""A model session's children: what one is started with, what lives with it, where a request
goes (``checks.model.session``)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from gradgate.checks.model.served import ServedChild
from gradgate.checks.sandbox.outcome import Target


@dataclass(frozen=True, slots=True)
class ChildKey:
    """What a child is started with: requests that agree on it share the child."""

    sha: str
    entrypoint: str | None
    device: str
    python: str | None
    sandbox: str
    memory_mb: int | None
    disk_mb: int | None
    network: bool
    env_allow: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Running:
    """A started child, with what lives as long as it does (the config folder it sees)."""

    child: ServedChild
    stack: contextlib.ExitStack
    config_dir: Path | None

    def close(self) -> None:
        self.child.close()
        self.stack.close()


@dataclass(frozen=True, slots=True)
class Asked:
    """Where a request goes: the child, the revision's tree, and the user's target in it."""

    running: Running
    root: Path
    config_dir: Path | None
    target: str | None
    parsed: Target
    path: Path | None


def inside(path: Path, folders: frozenset[Path]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)
