"""What the child sees: where its tree, HOME, /tmp and code are, and the bubblewrap command.

With process-level isolation the child sees the run's folder where it is on the machine. Under
bubblewrap it sees it at fixed paths (``/sandbox/tree``...), and of the machine only the
system, the interpreter's folders and the factory file named in the config, read-only, none of
them a folder that holds the source repository or gradgate's HOME (``rundir.secret_places``);
``bwrap`` builds the command line from that.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from gradgate.checks.sandbox import bwrap, probe, rundir


@dataclass(frozen=True, slots=True)
class View:
    tree: Path
    home: Path
    tmp: Path
    lib: Path
    request: Path

    @classmethod
    def of(cls, run: rundir.RunDir, lib: Path, *, bubblewrap: bool) -> View:
        if bubblewrap:
            inside = (bwrap.TREE, bwrap.HOME, bwrap.TMP, bwrap.LIB, bwrap.REQUEST)
            return cls(*(Path(p) for p in inside))
        return cls(run.tree, run.home, run.tmp, lib, run.request)

    def target_file(self, root: Path, path: str) -> str:
        """Where the child finds a file target: in its copy of the tree, or outside it as is."""
        host = (root / path).resolve()
        return str(self.tree / host.relative_to(root)) if host.is_relative_to(root) else str(host)


def bubblewrapped(
    found: probe.Bubblewrap,
    argv: list[str],
    *,
    run: rundir.RunDir,
    lib: Path,
    root: Path,
    env: Mapping[str, str],
    device: str,
    network: bool,
    target_file: str | None,
) -> list[str]:
    """``argv`` (the interpreter first) as the command that runs it under ``found``'s bwrap."""
    assert found.path is not None
    python = probe.interpreter(argv[0], env.get("PATH", os.defpath), env.get("LD_LIBRARY_PATH"))
    folders = [*python.paths, *env.get("LD_LIBRARY_PATH", "").split(":")]
    extra = target_file
    if extra is not None and Path(extra).is_relative_to(bwrap.INSIDE):
        extra = None  # in the tree's copy
    if extra is not None:
        folders.append(str(Path(extra).parent))  # a factory file outside the repository
    secret = rundir.secret_places(root)
    readonly = bwrap.readonly([f for f in folders if f and Path(f).is_dir()], secret)
    seen = extra is None or any(Path(extra).is_relative_to(f) for f in readonly)
    if extra is not None and not seen and bwrap.exposable(extra, secret):
        readonly.append(extra)  # its folder holds a secret place: the file alone
    devices = sorted(glob.glob("/dev/nvidia*")) if device.startswith("cuda") else []
    return bwrap.command(
        found.path,
        [python.executable, *argv[1:]],
        version=found.version,
        run_dir=run.path,
        lib=lib,
        links=_system_links(),
        readonly=readonly,
        network=network,
        devices=devices,
    )


@cache
def _system_links() -> dict[str, str]:
    return {p: os.readlink(p) for p in bwrap.SYSTEM_BINDS if os.path.islink(p)}
