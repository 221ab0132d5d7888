"""A cgroup per sandbox run, where the machine lets gradgate make one: whole-run limits and kill.

A run's cgroup holds the child and everything it starts, so its memory limit and process limit
hold for all of them together, the kernel counts the OOM kills, and at the end every process
in it can be killed, even one that called setsid().

Where one can be made:

- cgroup v2 (the unified hierarchy) with the ``memory`` and ``pids`` controllers: under the
  nearest cgroup above gradgate's own that enables both for its children and that gradgate may
  write (root; or a delegated subtree, e.g. ``systemd-run --user -p Delegate=yes``). A delegated
  cgroup that holds gradgate alone is split first: gradgate moves into a ``gradgate`` leaf so
  its parent may enable the controllers (cgroup v2 keeps processes out of inner cgroups).
- cgroup v1 (older or hybrid machines, as root): the ``memory`` and ``pids`` hierarchies,
  beside gradgate's own cgroup in each.

Elsewhere :func:`run_group` returns None and the limits fall back to rlimits
(``checks.sandbox.limits``). The child joins the group before it execs anything: the command
starts with :data:`JOIN`, a one-line shell prelude that writes its own pid into the group.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# `sh -c JOIN sh PROCS... -- COMMAND...`: join every group, then become the command.
JOIN = 'for f; do shift; [ "$f" = -- ] && break; echo 0 >"$f" || exit 125; done; exec "$@"'
_PREFIX = "gradgate-"
_counter = itertools.count()


@dataclass(frozen=True, slots=True)
class Place:
    """Where run groups are made: one folder (v2), or the memory and pids folders (v1)."""

    version: int
    parents: tuple[Path, ...]


def mounts(mountinfo: str) -> dict[str, Path]:
    """/proc/self/mountinfo -> {"unified": v2 mount, "memory": v1 mount, "pids": v1 mount}."""
    found: dict[str, Path] = {}
    for line in mountinfo.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        if len(after) < 3:
            continue
        fstype, options = after[0], after[2].split(",")
        point = Path(fields[4].replace("\\040", " "))
        if fstype == "cgroup2":
            found.setdefault("unified", point)
        elif fstype == "cgroup":
            for controller in ("memory", "pids"):
                if controller in options:
                    found.setdefault(controller, point)
    return found


def own_cgroups(proc_cgroup: str) -> dict[str, str]:
    """/proc/self/cgroup -> {"unified": path, "memory": path, "pids": path} (those present)."""
    own: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and not controllers:
            own["unified"] = path
        for controller in controllers.split(","):
            if controller in ("memory", "pids"):
                own[controller] = path
    return own


def _inside(mount: Path, path: str) -> Path:
    return mount / path.lstrip("/")


def _words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK) and os.access(folder / "cgroup.procs", os.W_OK)


def _v2_place(mount: Path, own: Path) -> Place | None:
    wanted = {"memory", "pids"}
    for folder in (own, *own.parents):
        if not folder.is_relative_to(mount):
            break
        if wanted <= _words(folder / "cgroup.subtree_control") and _writable(folder):
            return Place(2, (folder,))
    # A delegated cgroup that holds only gradgate: move gradgate into a leaf, then enable.
    if not (_writable(own) and wanted <= _words(own / "cgroup.controllers")):
        return None
    if _words(own / "cgroup.procs") != {str(os.getpid())}:
        return None
    try:
        leaf = own / "gradgate"
        leaf.mkdir(exist_ok=True)
        (leaf / "cgroup.procs").write_text("0")
        (own / "cgroup.subtree_control").write_text("+memory +pids")
    except OSError:
        return None
    return Place(2, (own,))


@cache
def place() -> Place | None:
    """Where this process may make run groups; None: nowhere. Decided once per process, by
    making one and moving a process into it (cgroup v2 also asks for write access to the
    common ancestor, which the files' modes alone do not tell)."""
    try:
        found = mounts(Path("/proc/self/mountinfo").read_text())
        own = own_cgroups(Path("/proc/self/cgroup").read_text())
    except OSError:
        return None
    for where in _candidates(found, own):
        if where is not None and _joinable(where):
            return where
    return None


def _candidates(found: dict[str, Path], own: dict[str, str]) -> Iterator[Place | None]:
    """v2 first, then v1; lazily, since looking at v2 may move gradgate into a leaf."""
    if "unified" in found and "unified" in own:
        yield _v2_place(found["unified"], _inside(found["unified"], own["unified"]))
    if all(c in found and c in own for c in ("memory", "pids")):
        parents = tuple(_inside(found[c], own[c]) for c in ("memory", "pids"))
        yield Place(1, parents) if all(_writable(p) for p in parents) else None


def _joinable(where: Place) -> bool:
    group = _make(where, memory_bytes=None, processes=None)
    if group is None:
        return False
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", JOIN, "sh", *group.procs, "--", "/bin/sh", "-c", ":"],
            capture_output=True,
            timeout=10,
            check=False,
        )
        return done.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        group.kill()
        group.remove()


class RunGroup:
    """One run's cgroup (a folder per hierarchy): made with its limits, killed and removed."""

    def __init__(self, where: Place, folders: tuple[Path, ...]) -> None:
        self.version = where.version
        self.folders = folders

    @property
    def procs(self) -> list[str]:
        """The files the child writes its pid into to join the group (see JOIN)."""
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def oom_kills(self) -> int:
        """How many processes of the run the kernel killed for exceeding the memory limit."""
        events = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            lines = (self.folders[0] / events).read_text().splitlines()
        except OSError:
            return 0
        counts = dict(line.split(maxsplit=1) for line in lines if " " in line)
        return int(counts.get("oom_kill", "0"))

    def kill(self) -> None:
        """SIGKILL every process in the group, until it is empty (a fork racing the kill too)."""
        kill_file = self.folders[0] / "cgroup.kill"  # v2, Linux 5.14+: one atomic write
        with contextlib.suppress(OSError):
            if self.version == 2 and kill_file.exists():
                kill_file.write_text("1")
        for attempt in range(100):
            pids = {int(p) for folder in self.folders for p in _words(folder / "cgroup.procs")}
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.001 * min(attempt + 1, 10))  # killed processes take a moment to go

    def remove(self) -> None:
        """Remove the folders; a killed process leaves its cgroup only once it has exited."""
        for folder in self.folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def run_group(*, memory_bytes: int | None, processes: int | None) -> RunGroup | None:
    """A new cgroup with these limits for one run; None where none can be made."""
    where = place()
    return None if where is None else _make(where, memory_bytes=memory_bytes, processes=processes)


def _make(where: Place, *, memory_bytes: int | None, processes: int | None) -> RunGroup | None:
    name = f"{_PREFIX}{os.getpid()}-{next(_counter)}"
    group = RunGroup(where, tuple(parent / name for parent in where.parents))
    try:
        for parent in where.parents:
            _remove_stale(parent)
        for folder in group.folders:
            folder.mkdir()
        _set_limits(group, memory_bytes=memory_bytes, processes=processes)
    except OSError:
        group.remove()
        return None
    return group


def _set_limits(group: RunGroup, *, memory_bytes: int | None, processes: int | None) -> None:
    first, last = group.folders[0], group.folders[-1]
    if group.version == 2:
        if memory_bytes is not None:
            (first / "memory.max").write_text(str(memory_bytes))
            # Without this the run could go on past the cap in swap, slowly, instead of failing.
            with contextlib.suppress(FileNotFoundError):
                (first / "memory.swap.max").write_text("0")
    elif memory_bytes is not None:
        (first / "memory.limit_in_bytes").write_text(str(memory_bytes))
        with contextlib.suppress(OSError):  # only with swap accounting; memory first
            (first / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
    if processes is not None:
        (last / "pids.max").write_text(str(processes))


def _remove_stale(parent: Path) -> None:
    """Groups left by a gradgate that was killed: empty ones whose process is gone."""
    for folder in parent.glob(f"{_PREFIX}*-*"):
        pid = folder.name[len(_PREFIX) :].partition("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                folder.rmdir()
