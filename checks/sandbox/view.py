"""What the child sees: where its tree, HOME, /tmp and code are, and the bubblewrap command.

The child's tree is at the path the check gave (``root``) in both modes, so paths a check
passes in kwargs, and file paths the child reports, mean the same on both sides. With
process-level isolation the child runs in that tree itself and sees the machine as gradgate's
user does. Under bubblewrap it runs in a copy of it without `.git`, shown at that path, with
HOME and the child's code at fixed paths (``/sandbox/...``), and of the machine only the
system, the interpreter's folders, the factory file named in the config and the folders the
check shows it, read-only, none of them a folder that holds the source repository or gradgate's HOME
(``rundir.secret_places``); ``bwrap`` builds the command line from that.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox import bwrap, probe, rundir


@dataclass(frozen=True, slots=True)
class View:
    tree: Path
    home: Path
    tmp: Path
    lib: Path
    request: Path

    @classmethod
    def of(cls, run: rundir.RunDir, lib: Path, *, root: Path, bubblewrap: bool) -> View:
        if bubblewrap:
            return cls(root, *(Path(p) for p in (bwrap.HOME, bwrap.TMP, bwrap.LIB, bwrap.REQUEST)))
        return cls(root, run.home, run.tmp, lib, run.request)


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
    readable: Collection[Path] = (),
    disk_bytes: int | None = None,
) -> list[str]:
    """``argv`` (the interpreter first) as the command that runs it under ``found``'s bwrap.

    ``readable``: files and folders the check shows the child, read-only, at their own paths.
    ``disk_bytes``: the disk cap (``checks.sandbox.disk``); None: none.
    Raises SandboxError (kind "sandbox") for a shared folder that holds a secret place.
    """
    assert found.path is not None
    python = probe.interpreter(argv[0], env.get("PATH", os.defpath), env.get("LD_LIBRARY_PATH"))
    folders = [*python.paths, *env.get("LD_LIBRARY_PATH", "").split(":")]
    extra = target_file
    if extra is not None and Path(extra).is_relative_to(root):
        extra = None  # in the tree's copy
    if extra is not None:
        folders.append(str(Path(extra).parent))  # a factory file outside the repository
    secret = rundir.secret_places(root)
    # What lies in the tree is there already, as the child's own copy.
    readable = [p for p in readable if not p.resolve().is_relative_to(root)]
    shared = [str(p.resolve()) for p in readable]
    for folder in shared:
        if not bwrap.exposable(folder, secret):
            raise SandboxError(
                f"`{folder}` cannot be shown to user code: it holds the source repository or "
                "gradgate's HOME. Keep the files user code needs in a folder of their own.",
                kind="sandbox",
            )
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
        tree=root,
        lib=lib,
        links=_system_links(),
        readonly=[*readonly, *shared],
        network=network,
        devices=devices,
        disk_bytes=disk_bytes,
    )


@cache
def _system_links() -> dict[str, str]:
    return {p: os.readlink(p) for p in bwrap.SYSTEM_BINDS if os.path.islink(p)}
