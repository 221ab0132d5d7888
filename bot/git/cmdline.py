"""git as gradgate drives it, GitPython aside: the command lines, and reading what git writes.

No GitPython and no process of its own: bot.git.repository starts git with these command lines and
hands over a :class:`Started`. bot.git.parse relies on the output they pin (full shas, `a/` and
`b/` prefixes, core.quotepath=false, zero context lines).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TypeVar

from gradgate.checks.errors import GitError

_T = TypeVar("_T")

# `-c` settings for every git call: paths in patch headers are quoted only where C needs it
# (so we can check them), and nothing from the user's hooks or fsmonitor runs on our behalf.
CONFIG = tuple(
    item
    for setting in ("core.quotepath=false", "core.hooksPath=/dev/null", "core.fsmonitor=false")
    for item in ("-c", setting)
)

# Pin every `git diff` behaviour a user's config (diff.*, color.*, core.quotepath) could change.
# Renames: on, at git's default 50% similarity. Copies (-C) stay off: a copy leaves its source
# untouched, and counting the source path would trigger zones nobody edited. `-l1000` is git's
# own default diff.renameLimit, pinned: exact renames and directory moves (basename matching)
# are found at any size; only the quadratic inexact search is skipped above 1000x1000 candidates,
# and then a rename shows as delete + add, which still touches both paths.
_DIFF_OPTIONS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--no-abbrev",
    "--ignore-submodules=none",
    "--submodule=short",
    "--find-renames",
    "-l1000",
)
_PATCH_OPTIONS = (
    "--patch",
    "--unified=0",
    "--inter-hunk-context=0",
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)
# The two diffs gradgate reads; each takes "<base> <head> --" after it.
PATCH_DIFF = ("diff", "--raw", "-z", *_DIFF_OPTIONS, *_PATCH_OPTIONS)  # records, "", the patch
NAME_STATUS_DIFF = ("diff", "--name-status", "-z", *_DIFF_OPTIONS)
# Every path at a commit and every directory above them, whatever directory git starts in.
LS_TREE = ("ls-tree", "-r", "-t", "-z", "--name-only", "--full-tree")


def outside_worktree(git_dir: str, empty_dir: str) -> tuple[str, ...]:
    """Options (before the command) that run git from an empty directory as its work tree.

    `git diff A B` reads `.gitattributes` from the checked-out work tree, which in CI is the PR
    head: a PR adding `*.py -diff` would make git call its own Python binary, `diff=x` would
    pick a driver. Outside any work tree no such file is read, so git judges files by their
    bytes (a NUL in the first 8,000 is binary); the repository's own `info/attributes` and the
    machine's config, which a PR cannot change, still apply.
    """
    return ("-C", empty_dir, f"--git-dir={git_dir}", f"--work-tree={empty_dir}")


FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def check_rev(*revs: str) -> None:
    """Reject what git would not read as a revision: "-x" is an option to it, "" is nothing."""
    for rev in revs:
        if not rev or rev.startswith("-"):
            raise GitError(f"'{rev}' is not a revision")


def batchable(path: str) -> bool:
    """Whether `git cat-file --batch`, which reads one name per line, can take ``path``.

    Not with a line break, and not with a non-UTF-8 name carried as surrogates.
    """
    if not path or "\n" in path or "\r" in path:
        return False
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def range_query(base: str, head: str) -> tuple[str, ...] | None:
    """The `git rev-parse` arguments that settle a pull request's range in one run.

    `rev-parse H B H...B` prints H, B, then the pair again and `^` before each merge base;
    resolve + merge-base took five git runs. None when either side holds "..": "a..b" is a
    range, not a commit, and resolving it one side at a time says so.
    """
    if ".." in base + head:
        return None
    h, b = f"{head}^{{commit}}", f"{base}^{{commit}}"
    return ("rev-parse", h, b, f"{h}...{b}")


def read_range(out: bytes) -> tuple[str, str] | None:
    """(merge base, head) as full SHAs from :func:`range_query`'s output.

    None when that run did not settle it (no merge base, or several): the slow path's errors
    then say what is wrong.
    """
    fields = out.decode().split()
    shas = [field.removeprefix("^") for field in fields]
    settled = (
        len(fields) == 5
        and sorted(fields[:2]) == sorted(fields[2:4])
        and fields[4][:1] == "^"
        and all(map(FULL_SHA.fullmatch, shas))
    )
    return (shas[4], shas[0]) if settled else None


@dataclass(frozen=True)
class Started:
    """A git started by bot.git.repository, read while it writes."""

    stdout: IO[bytes]
    poll: Callable[[], int | None]  # its exit status, or None while it runs
    kill: Callable[[], None]
    wait: Callable[[], None]  # reaps it; a GitError saying why when it failed (or was killed)


def read(git: Started, reader: Callable[[IO[bytes]], _T]) -> _T:
    """What ``reader`` makes of git's output, with git reaped; a failed git is a GitError.

    A reader that gives up while git still writes stops git, and the reader's error is the news
    (reaping a killed git raises, which used to hide it). Once git has exited on its own, a
    failure of git's is the news, and the reader's error only its symptom (output cut short).
    """
    try:
        result = reader(git.stdout)
    except BaseException as error:
        if isinstance(error, Exception) and git.poll() is not None:
            git.wait()  # exited on its own: raises if git failed
        stop(git)
        raise
    git.wait()
    return result


def stop(git: Started) -> None:
    """Kill and reap ``git`` if it still runs; its status then is the kill, not news."""
    if git.poll() is None:
        git.kill()
        with contextlib.suppress(GitError):
            git.wait()
