"""A model session's children: what one is started with, what lives with it, where a request
goes, and the one file the parent writes where a child reads (``checks.model.session``)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from gradgate.checks.errors import SandboxError
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


def fresh_file(folder: Path, name: str, *, revision: str) -> int:
    """A new, empty file ``name`` in ``folder``, opened for writing, readable by all: what lay
    at that name goes first, whatever it was, and no link is followed."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    where = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=where)
        return os.open(name, flags, 0o444, dir_fd=where)
    except OSError as exc:
        raise SandboxError(
            f"gradgate could not hand `{name}` to the {revision} revision's children: "
            f"{exc.strerror or exc}; something else lies in their inbox",
            kind="sandbox",
            revision=revision,
        ) from None
    finally:
        os.close(where)
