"""User code that fills a disk: many 1 MB files, so no single file reaches a per-file limit."""

from __future__ import annotations

import os
import tempfile


def fills(where: str, files: int = 4096) -> int:
    """Write up to ``files`` MB, one 1 MB file at a time, into /tmp, HOME or the tree (cwd)."""
    folder = {"tmp": tempfile.gettempdir(), "home": os.path.expanduser("~"), "tree": "."}[where]
    block = b"x" * (1 << 20)
    for number in range(files):
        with open(os.path.join(folder, f"fill-{number}.bin"), "wb") as file:
            file.write(block)
    return files


def tmp_size() -> dict[str, int]:
    """What the run's /tmp (TMPDIR) says of its own size, as `df` would."""
    found = os.statvfs(tempfile.gettempdir())
    return {"total": found.f_blocks * found.f_frsize, "free": found.f_bavail * found.f_frsize}
