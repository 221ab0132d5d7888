"""The disk cap: how much a run may write to its /tmp, HOME and tree, and how that holds here.

Under bubblewrap the cap is a filesystem of its own (issue 18: one run wrote 1 GB to the host's
disk through /tmp, and /tmp reported the host's free space): /tmp is a tmpfs of ``disk_mb``
(bubblewrap's ``--size``) that also holds HOME, and the child copies the tree into a tmpfs of
the same size at the tree's own path (into /tmp's, when the tree lies under /tmp) before user
code runs. A write past the cap fails at once with ENOSPC, which the child reports as a "disk"
error; `df` inside shows the cap. Each tmpfs counts against the run's memory too, as RAM.

Without bubblewrap nothing can mount a filesystem for the run, so the cap is ``watched``: the
supervisor measures the run's /tmp and HOME, and what the tree has grown by, at least every
second (less often for a tree so large that measuring it would cost more than a twentieth of
the time) and stops the run past the cap. Process-level code can write anywhere gradgate's
user can; that is not counted, and the report says the run was process-level only.

In both modes RLIMIT_FSIZE caps each file at ``disk_mb`` too. No folder of the host is ever
shown to a child writable: a model child's exchange (the files a base run hands to the head
run, ``checks.model.served``) is a folder in its own /tmp, under the same cap.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

# tmpfs: a filesystem of that size; watched: measured by the supervisor (process-level).
DiskCap = Literal["tmpfs", "watched"]
ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
_EVERY_S = 1.0
_COST_SHARE = 20  # measure at most once per this many times the last measurement took


def usage(paths: Iterable[Path]) -> int:
    """Bytes of disk the files under ``paths`` take (allocated blocks; symlinks not followed)."""
    total = 0
    pending = [str(p) for p in paths]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:  # removed meanwhile, or not readable: not the run's to count
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                else:
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                continue
    return total


class Watch:
    """Is the run past its cap? Called by the supervisor as often as it likes; measures only
    as often as it is worth. ``growing``: folders counted by what they gained since the start
    (the tree the run works in)."""

    def __init__(self, cap_bytes: int, *, fresh: Iterable[Path], growing: Iterable[Path]) -> None:
        self._cap, self._fresh, self._growing = cap_bytes, list(fresh), list(growing)
        self._baseline = usage(self._growing)
        self._next = 0.0

    def __call__(self) -> bool:
        now = time.monotonic()
        if now < self._next:
            return False
        used = usage(self._fresh) + max(0, usage(self._growing) - self._baseline)
        took = time.monotonic() - now
        self._next = now + max(_EVERY_S, _COST_SHARE * took)
        return used > self._cap
