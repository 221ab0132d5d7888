"""Run a hostile target the way gradgate runs it on a CI runner, and watch what it leaves behind.

``as_gradgate`` starts a separate process — "gradgate" — whose environment holds the tokens a
runner has (so they are in its ``/proc/PID/environ`` and on its stack, not only in
``os.environ``) and whose HOME holds a git credentials file; it runs one target in the sandbox
and prints what came back. Meanwhile the test process notes, by PID, every process whose
command line carries the run's mark, so it can check afterwards that none is left.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
MARK = "gradgatetestsecret"  # as in targets/userpkg/hostile.py
TOKENS = {
    name: f"{MARK}-{name.lower()}"
    for name in (
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
    )
}

_DRIVER = """\
import json, sys
from pathlib import Path
from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.run import SandboxLimits, run_in_sandbox
args = json.loads(sys.argv[1])
seen = []
try:
    value = run_in_sandbox(
        args["target"], root=Path(args["root"]), kwargs=args["kwargs"], revision="head",
        limits=SandboxLimits(**args["limits"]), sandbox=args["sandbox"], network=args["network"],
        on_isolation=seen.append,
    )
    answer = {"value": value}
except SandboxError as exc:
    answer = {"kind": exc.kind, "message": str(exc)}
answer["isolation"] = {k: getattr(seen[0], k) for k in seen[0].__slots__} if seen else None
print(json.dumps(answer))
"""


@dataclass
class Run:
    returncode: int
    answer: dict[str, Any]
    marked: set[int] = field(default_factory=set)  # PIDs of marked processes seen during the run
    stderr: str = ""
    peak: int = 0  # the most marked processes seen at once

    @property
    def value(self) -> Any:
        assert "value" in self.answer, self.answer
        return self.answer["value"]

    @property
    def kind(self) -> str | None:
        return self.answer.get("kind")

    @property
    def isolation(self) -> dict[str, Any]:
        isolation = self.answer["isolation"]
        assert isinstance(isolation, dict)
        return isolation


def new_mark() -> str:
    return f"gradgate-test-process-{secrets.token_hex(6)}"


def as_gradgate(
    target: str,
    *,
    root: Path,
    home: Path,
    tmp: Path,
    sandbox: str,
    kwargs: dict[str, Any] | None = None,
    limits: dict[str, Any] | None = None,
    network: bool = False,
    mark: str | None = None,
) -> Run:
    """Run ``userpkg.hostile:<target>`` from a separate "gradgate" process holding tokens."""
    args = {
        "target": f"userpkg.hostile:{target}",
        "root": str(root),
        "kwargs": kwargs or {},
        "limits": {"timeout_s": 20, "memory_mb": 1024, **(limits or {})},
        "sandbox": sandbox,
        "network": network,
    }
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        **TOKENS,
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", _DRIVER, json.dumps(args)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    marked: set[int] = set()
    peak = 0
    while proc.poll() is None:
        if mark is not None:
            now = marked_processes(mark) - {proc.pid}  # its arguments carry the mark too
            marked |= now
            peak = max(peak, len(now))
        time.sleep(0.02)
    out, err = proc.communicate()
    answer = json.loads(out) if out.strip() else {}
    return Run(proc.returncode, answer, marked, err, peak)


def marked_processes(mark: str) -> set[int]:
    """Live processes whose command line carries ``mark``."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if mark.encode() in cmdline and not is_gone(int(entry), wait_s=0):
            found.add(int(entry))
    return found


def is_gone(pid: int, wait_s: float = 3.0) -> bool:
    """Dead or a zombie (which init may not have reaped yet in a container)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file under ``folders`` and its bytes, to compare before and after a run."""
    files = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[str(path)] = path.read_bytes()
    return files
