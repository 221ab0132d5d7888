"""Peak memory of a process and everything it starts, sampled from /proc (Linux).

``getrusage(RUSAGE_CHILDREN)`` only sees children that have exited and been waited for, and
only the largest one: a long-lived sandboxed child (bubblewrap's pid namespace, a shared model
child still running when the measured process reads its usage) and two children at once slip
past it. Sampling the whole process tree every few milliseconds sees both. Each process counts
its proportional set size (``Pss`` in ``smaps_rollup``): pages it shares with the others (two
children's copy of torch's libraries) count once in the sum, as they take memory once; where
that file cannot be read, its resident set.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


def _parents() -> dict[int, int]:
    """pid -> parent pid, for every process visible now."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone since the listing
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and ")"; split after the last ")"
        found[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def tree_bytes(root: int) -> int:
    """Memory of ``root`` and all its descendants now, in bytes."""
    parents = _parents()
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        tree.update(children)
        frontier.extend(children)
    return sum(_bytes(pid) for pid in tree)


def _bytes(pid: int) -> int:
    """The process's proportional set size, else its resident set; 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024  # kB
    except (OSError, IndexError, ValueError):
        pass
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


class PeakSampler:
    """``with PeakSampler(pid) as peak: ...`` then ``peak.mb``: the largest tree memory seen."""

    def __init__(self, pid: int, every_s: float = 0.02) -> None:
        self.pid, self.every_s, self.peak = pid, every_s, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_bytes(self.pid))
            self._stop.wait(self.every_s)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def mb(self) -> float:
        return self.peak / 2**20
