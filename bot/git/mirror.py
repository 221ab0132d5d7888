"""Bare mirrors of the App's repositories, one per repo, and a worktree per job.

Fetches authenticate with an installation token passed to git in its environment
(GIT_CONFIG_COUNT/KEY/VALUE: an `http.extraHeader` for that one command). The token never
appears in a URL, a command line (which other users can read in the process list) or any
file under .git. Jobs on one repo share its mirror: fetches and worktree changes take the
repo's `fetch.lock`; a running job holds `use.lock` shared, so trimming (which takes it
exclusively, without waiting) never removes a mirror in use. Trimming removes the least
recently used mirrors once they add up to more than the budget.

Plain `git` subprocesses, not GitPython: each command needs its own environment, and nothing
here reads git's output beyond success or failure.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from gradgate.checks.errors import GitError

_SAFE = re.compile(r"[^A-Za-z0-9._-]")
# No user or system config, no prompts: a worker's git behaves the same on every machine.
_BASE_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "echo"}


def auth_env(token: str | None) -> dict[str, str]:
    """The environment that makes one git command send ``token`` (none: no header)."""
    if not token:
        return {}
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.extraHeader",
        "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}",
    }


def _env(token: str | None) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("GIT_")
    }  # an inherited GIT_DIR or GIT_CONFIG_* must not redirect or re-authenticate us
    return env | _BASE_ENV | {"HOME": os.environ.get("HOME", "/nonexistent")} | auth_env(token)


def _git(args: Sequence[str], *, cwd: Path | None = None, token: str | None = None) -> str:
    env = _env(token)
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise GitError(f"git {args[0]} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


@contextlib.contextmanager
def _flock(path: Path, mode: int) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, mode)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class Mirrors:
    """``root/mirrors/<owner>__<name>.git`` and ``root/jobs/<job>``; ``budget_mb`` bounds the
    mirrors' total size."""

    def __init__(self, root: Path, *, budget_mb: int) -> None:
        self.mirrors = root / "mirrors"
        self.jobs = root / "jobs"
        self.budget_bytes = budget_mb * 1024 * 1024

    def path(self, repo: str) -> Path:
        return self.mirrors / (_SAFE.sub("_", repo.replace("/", "__")) + ".git")

    @contextlib.contextmanager
    def checkout(
        self, repo: str, url: str, refs: Sequence[str], *, token: str | None, sha: str, job: str
    ) -> Iterator[Path]:
        """Fetch ``refs`` (each ``src:dst``, forced) from ``url`` into the repo's mirror, then
        give a detached worktree of ``sha`` for ``job``, removed afterwards (a killed job's is
        removed by ``sweep``). The mirror cannot be trimmed meanwhile."""
        mirror = self.path(repo)
        target = self.jobs / _SAFE.sub("_", job)
        with _flock(mirror.with_suffix(".use.lock"), fcntl.LOCK_SH):
            with _flock(mirror.with_suffix(".fetch.lock"), fcntl.LOCK_EX):
                if not (mirror / "HEAD").exists():
                    mirror.mkdir(parents=True, exist_ok=True)
                    _git(["init", "-q", "--bare", str(mirror)])
                _clear_stale_locks(mirror)
                fetch = ["fetch", "-q", "--no-tags", "--prune", url, *(f"+{r}" for r in refs)]
                _git(fetch, cwd=mirror, token=token)
                (mirror / "gradgate-used").touch()  # least recently used goes first (trim)
                shutil.rmtree(target, ignore_errors=True)
                _git(["worktree", "prune"], cwd=mirror)
                add = ["worktree", "add", "-q", "--detach", "--no-checkout", str(target), sha]
                _git(add, cwd=mirror)
            try:
                yield target
            finally:
                shutil.rmtree(target, ignore_errors=True)
                with _flock(mirror.with_suffix(".fetch.lock"), fcntl.LOCK_EX):
                    _git(["worktree", "prune"], cwd=mirror)

    def read_branch_file(
        self, repo: str, url: str, branch: str, path: str, *, token: str | None, limit: int
    ) -> bytes | None:
        """``path`` as it is on ``branch`` (fetched first), or None when it is not there or is
        larger than ``limit`` bytes. For what a worker decides before running anything: the
        base's `.gradgate.yml` (its `trust:`)."""
        mirror = self.path(repo)
        ref = f"refs/heads/{branch}"
        with _flock(mirror.with_suffix(".use.lock"), fcntl.LOCK_SH):
            with _flock(mirror.with_suffix(".fetch.lock"), fcntl.LOCK_EX):
                if not (mirror / "HEAD").exists():
                    mirror.mkdir(parents=True, exist_ok=True)
                    _git(["init", "-q", "--bare", str(mirror)])
                _clear_stale_locks(mirror)
                _git(["fetch", "-q", "--no-tags", url, f"+{ref}:{ref}"], cwd=mirror, token=token)
            spec = f"{ref}:{path}"
            try:
                size = int(_git(["cat-file", "-s", spec], cwd=mirror))
            except GitError:
                return None
            if size > limit:
                return None
            shown = subprocess.run(
                ["git", "cat-file", "blob", spec],
                cwd=mirror,
                env=_env(None),
                capture_output=True,
                check=False,
            )
            return shown.stdout if shown.returncode == 0 else None

    def sweep(self, running: set[str]) -> list[Path]:
        """Remove the job directories of jobs not in ``running`` (left by a killed worker)."""
        keep = {_SAFE.sub("_", job) for job in running}
        removed = []
        for entry in sorted(self.jobs.glob("*")) if self.jobs.exists() else []:
            if entry.name not in keep:
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
        return removed

    def size(self) -> int:
        return sum(_tree_size(m) for m in self.mirrors.glob("*.git"))

    def trim(self) -> list[Path]:
        """Remove least recently used mirrors not in use until the rest fit the budget."""
        mirrors = sorted(self.mirrors.glob("*.git"), key=_last_used)
        sizes = {m: _tree_size(m) for m in mirrors}
        total, removed = sum(sizes.values()), []
        for mirror in mirrors:
            if total <= self.budget_bytes:
                break
            lock = mirror.with_suffix(".use.lock")
            with lock.open("a") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a job is using it
                shutil.rmtree(mirror, ignore_errors=True)
                fcntl.flock(handle, fcntl.LOCK_UN)
            total -= sizes[mirror]
            removed.append(mirror)
        return removed


def _clear_stale_locks(mirror: Path) -> None:
    """Lock files a git killed mid-fetch left (a worker killed with -9): with the fetch lock
    held, no git of ours is writing here, and git would refuse every later fetch over them."""
    for lock in [*mirror.glob("*.lock"), *mirror.glob("refs/**/*.lock")]:
        with contextlib.suppress(OSError):
            lock.unlink()


def _last_used(mirror: Path) -> float:
    stamp = mirror / "gradgate-used"
    return stamp.stat().st_mtime if stamp.exists() else 0.0


def _tree_size(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total
