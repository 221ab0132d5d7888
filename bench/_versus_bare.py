"""What the benchmarks of a check against bare children share (bench/perf.py, bench/data.py).

A two-commit git repo of one file, with the same texts in plain folders for the bare children;
the check and the bare children run interleaved, best of N, so a busy spell hits both; and the
printed lines with the figure: the check's wall time as a ratio to the bare children's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.gradient import figure, git

ROOT = Path(__file__).resolve().parents[1]


def two_revisions(
    folder: Path, name: str, base: str, head: str, beside: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """``folder/repo``: file ``name`` committed as ``base``, then as ``head``; the two shas.
    ``folder/base`` and ``folder/head``: each text as ``name``, with the ``beside`` files, for
    the bare children."""
    root = folder / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    shas = []
    for revision, text in (("base", base), ("head", head)):
        (root / name).write_text(text, encoding="utf-8")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", revision)
        shas.append(git(root, "rev-parse", "HEAD"))
        (folder / revision).mkdir()
        for path, content in {name: text, **(beside or {})}.items():
            (folder / revision / path).write_text(content, encoding="utf-8")
    return shas[0], shas[1]


def timed(command: Sequence[str]) -> tuple[float, str]:
    """Wall seconds and stdout of ``command``, run from the repository root."""
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{command[1:3]} exited {done.returncode}:\n{done.stderr}")
    return time.perf_counter() - started, done.stdout


def versus_bare(
    runs: int, bare: Callable[[], float], check: Sequence[str]
) -> tuple[float, float, dict[str, Any]]:
    """The best of ``runs`` of the bare children (``bare``: their seconds) and of ``check`` (a
    process whose last line is the check's JSON), interleaved: (bare s, check s, that JSON)."""
    bare_s: list[float] = []
    check_s: list[float] = []
    result: dict[str, Any] = {}
    for _ in range(runs):
        bare_s.append(bare())
        wall, out = timed(check)
        check_s.append(wall)
        result = json.loads(out.strip().splitlines()[-1])
    return min(bare_s), min(check_s), result


def report(
    name: str,
    target: float,
    found: tuple[float, float, dict[str, Any]],
    *,
    bare: str,
    check: str,
    runs: int,
    missed: str,
) -> int:
    """Print both times and the figure ``name``; 1 when the check missed the head's change."""
    bare_s, check_s, result = found
    print(f"bare children ({bare}): {bare_s:.2f} s")
    said = f"{result['outcome']}: {result['summary']}"
    print(f"{check} ({said}): {check_s:.2f} s; best of {runs} each")
    if not result["caught"]:
        print(missed, file=sys.stderr)
        return 1
    print(figure(name, check_s / bare_s, target))
    return 0
