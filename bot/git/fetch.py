"""The Action's trusted side: a pull request's head and base, fetched as git objects (issue 17).

The publishing workflow checks out the base repository's default branch, never the PR's tree;
gradgate then fetches `refs/pull/N/head` and the base branch into refs of its own and reads
them as objects (the checks export a revision where they need files, and only model code, under
bubblewrap, ever runs from one). The token goes to git in its environment (``auth_env``), never
in a URL, a command line or a file under .git.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from gradgate.bot.git.mirror import _git
from gradgate.checks.errors import GitError

BASE_REF = "refs/gradgate/base"
HEAD_REF = "refs/gradgate/head"


def fetch_pull(root: Path, *, number: int, base_ref: str, head_sha: str, token: str | None) -> None:
    """Into the checkout at ``root``, from its `origin`: PR ``number``'s head as HEAD_REF and the
    base branch ``base_ref`` as BASE_REF. GitError when ``head_sha`` is not among them (the PR
    was pushed over since), or when git fails."""
    if not _branch_name(base_ref):
        raise GitError(f"the pull request's base branch is not a branch name: {base_ref[:60]!r}")
    refs = [f"+refs/pull/{number}/head:{HEAD_REF}", f"+refs/heads/{base_ref}:{BASE_REF}"]
    _git(["fetch", "-q", "--no-tags", "origin", *refs], cwd=root, token=token)
    try:
        _git(["cat-file", "-e", f"{head_sha}^{{commit}}"], cwd=root)
    except GitError:
        raise GitError(
            f"the pull request's head {head_sha} is not on refs/pull/{number}/head any more "
            "(a newer push replaced it; its own run reports on it)"
        ) from None


def _branch_name(name: str) -> bool:
    done = subprocess.run(
        ["git", "check-ref-format", f"refs/heads/{name}"], capture_output=True, check=False
    )
    return done.returncode == 0 and not name.startswith("-")
