"""Local git for gradgate: revisions, the diff between two of them, files at a revision, checkouts.

The only module that imports GitPython. Every git failure leaves it as a GitError whose message
says what to do. Diffs are read with `git diff --raw -z` (plus `-p -U0` for line spans) through
GitPython's command runner and parsed by bot.gitparse: GitPython's `Diff` objects took 36 s on a
100,000-file diff against 0.1 s for `git diff --raw -z` itself.

Not thread-safe (GitPython keeps a `git cat-file` process per repository): one instance per thread.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import git
from git.exc import (
    BadName,
    BadObject,
    GitCommandError,
    GitCommandNotFound,
    InvalidGitRepositoryError,
    NoSuchPathError,
)

from bot.errors import GitError
from bot.gitparse import GITLINK, parse_names, parse_with_lines, read_name_status
from checks.changes import FileChange

# `-c` settings for every git call: paths in patch headers are quoted only where C needs it
# (so we can check them), and nothing from the user's hooks or fsmonitor runs on our behalf.
_CONFIG = tuple(
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

_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class GitRepository:
    """A local clone (working tree or bare mirror); implements checks.base.RevisionSource."""

    def __init__(self, path: Path) -> None:
        try:
            self._repo = git.Repo(path, search_parent_directories=True)
        except NoSuchPathError as exc:
            raise GitError(f"{path} does not exist, so it is not a git repository") from exc
        except InvalidGitRepositoryError as exc:
            raise GitError(f"{path} is not a git repository (run gradgate in a clone)") from exc
        self.root = Path(self._repo.working_tree_dir or self._repo.git_dir)
        self._known: set[str] = set()  # revisions read() has seen exist

    def close(self) -> None:
        """Stop GitPython's helper processes; the object is unusable afterwards."""
        self._repo.close()

    def __enter__(self) -> GitRepository:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def resolve(self, rev: str) -> str:
        """The full SHA of the commit ``rev`` names (a SHA, branch, tag, ``HEAD~2``...)."""
        _check_rev(rev)
        try:
            out = self._git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        except GitError as error:
            if _exit_status(error) != 1:  # 1 is "no such commit"; a broken repo speaks for itself
                raise
            raise GitError(self._unknown(rev)) from None
        return out.decode().strip()

    def merge_base(self, base: str, head: str) -> str:
        """The best common ancestor of ``base`` and ``head``: where the PR's diff starts."""
        base_sha, head_sha = self.resolve(base), self.resolve(head)
        try:
            return self._git("merge-base", base_sha, head_sha).decode().strip()
        except GitError as error:
            if _exit_status(error) != 1:  # 1 is "no merge base"
                raise
            raise GitError(
                f"'{base}' and '{head}' have no common ancestor in {self.root}: unrelated "
                "histories, or a shallow clone too shallow to reach one (fetch more history)"
            ) from None

    def diff_range(self, base: str, head: str) -> tuple[str, str]:
        """(merge-base of ``base`` and ``head``, ``head``) as full SHAs: a pull request's diff.

        One `git rev-parse H B H...B`: H, B, then the pair again and `^` before each merge base;
        resolve + merge-base was five git runs. What it does not settle (no merge base, several,
        an unknown revision) takes those five, whose errors say what is wrong.
        """
        for rev in (base, head):
            _check_rev(rev)
        if ".." not in base + head:  # "a..b" is a range, not a commit: let resolve say so
            h, b = f"{head}^{{commit}}", f"{base}^{{commit}}"
            with contextlib.suppress(GitError):
                out = self._git("rev-parse", h, b, f"{h}...{b}").decode().split()
                shas = [x.removeprefix("^") for x in out]
                ok = len(out) == 5 and sorted(out[:2]) == sorted(out[2:4]) and out[4][:1] == "^"
                if ok and all(map(_FULL_SHA.fullmatch, shas)):
                    return shas[4], shas[0]
        head_sha = self.resolve(head)
        return self.merge_base(self.resolve(base), head_sha), head_sha

    def changes(
        self, base_sha: str, head_sha: str, *, lines: bool = True
    ) -> tuple[FileChange, ...]:
        """The diff ``base_sha..head_sha`` between the two endpoints exactly as given.

        For a pull request pass ``merge_base(base, head)`` as ``base_sha``; this method takes no
        merge base itself. ``lines=False`` reads names, statuses and modes only (the planner's
        fast path); spans stay empty and ``binary`` is not known then.
        """
        for rev in (base_sha, head_sha):
            _check_rev(rev)
        try:
            if not lines:
                out = self._git("diff", "--raw", "-z", *_DIFF_OPTIONS, base_sha, head_sha, "--")
                return parse_names(out)
            return self._changes_with_lines(base_sha, head_sha)
        except GitError:
            for rev in (base_sha, head_sha):
                self.resolve(rev)  # names the revision that does not exist, if one does not
            raise

    def changed_paths(self, base_sha: str, head_sha: str) -> tuple[list[str], int]:
        """The paths ``base_sha..head_sha`` touches (a rename under both) and how many files."""
        with self.start_changed_paths(base_sha, head_sha) as diff:
            return diff()

    @contextlib.contextmanager
    def start_changed_paths(
        self, base_sha: str, head_sha: str
    ) -> Iterator[Callable[[], tuple[list[str], int]]]:
        """`changed_paths`, with git started now and read when the function it gives is called.

        git spends ~0.1 s on a 100,000-file diff before writing anything; the planner reads and
        compiles the config meanwhile. Leaving the block stops a git not read.
        """
        for rev in (base_sha, head_sha):
            _check_rev(rev)
        args = ("diff", "--name-status", "-z", *_DIFF_OPTIONS, base_sha, head_sha, "--")
        proc = self._start(*args)

        def result() -> tuple[list[str], int]:
            try:
                try:
                    return read_name_status(proc.stdout)  # reads to the end, then parses
                finally:
                    proc.wait()  # a failed git, not what it left unparsed, is the news
            except GitCommandError as exc:
                for rev in (base_sha, head_sha):
                    self.resolve(rev)  # names the revision that does not exist, if one does not
                raise GitError(self._failed(args, exc)) from exc

        try:
            yield result
        finally:
            if proc.poll() is None:  # not read: the caller failed first
                proc.kill()
                with contextlib.suppress(GitCommandError):  # killed: a status, not news
                    proc.wait()

    def read(self, revision: str, path: str) -> bytes | None:
        """The file's bytes at ``revision``; None when absent there, a directory or a submodule."""
        if "\n" in path or "\r" in path or not path or not _utf8(path):
            return self._read_from_tree(revision, path)
        # One round trip to git's persistent `cat-file --batch` per file. Tree.join instead
        # parsed every tree on the way down on each call: 5 minutes for a 100,000-file PR.
        try:
            _, kind, _, data = self._repo.git.get_object_data(f"{revision}:{path}")
        except ValueError:  # "<name> missing": no such path (or no such revision) there
            if revision not in self._known:
                self._tree(revision)  # raises GitError naming an unknown revision
                self._known.add(revision)
            return None
        return bytes(data) if kind in (b"blob", "blob") else None  # bytes, though typed str

    def _read_from_tree(self, revision: str, path: str) -> bytes | None:
        """`cat-file --batch` reads one name per line, so such paths are looked up in the tree."""
        try:
            item = self._tree(revision).join(path)
        except KeyError:
            return None
        if item.type != "blob":
            return None
        data: bytes = item.data_stream.read()
        return data

    @contextlib.contextmanager
    def checkout(self, revision: str) -> Iterator[Path]:
        """A temporary directory holding the whole tree at ``revision``, removed on exit.

        A detached `git worktree`: the user's working tree, index and HEAD are not touched, hooks
        do not run and Git LFS leaves pointer files in place (DESIGN: LFS pointers are recognised).
        """
        sha = self.resolve(revision)
        holder = Path(tempfile.mkdtemp(prefix="gradgate-"))
        tree = holder / "tree"
        try:
            self._git(
                "worktree",
                "add",
                "--detach",
                "--quiet",
                "--",
                str(tree),
                sha,
                env={"GIT_LFS_SKIP_SMUDGE": "1"},
                config=("core.sparseCheckout=false",),
            )
            yield tree
        finally:
            with contextlib.suppress(GitError):
                self._git("worktree", "remove", "--force", "--force", "--", str(tree))
            shutil.rmtree(holder, ignore_errors=True)
            with contextlib.suppress(GitError):
                self._git("worktree", "prune")

    def list_files(self, revision: str) -> tuple[str, ...]:
        """Every file path at ``revision`` that :meth:`read` returns bytes for (no submodules)."""
        out = self._git("ls-tree", "-r", "-z", "--full-tree", self.resolve(revision))
        entries = out.decode("utf-8", "surrogateescape").split("\0")
        # Each entry is "<mode> <type> <sha>\t<path>".
        return tuple(
            entry.split("\t", 1)[1] for entry in entries if entry and not entry.startswith(GITLINK)
        )

    def _tree(self, revision: str) -> git.Tree:
        sha = revision if _FULL_SHA.fullmatch(revision) else self.resolve(revision)
        try:  # GitPython reads the object lazily, on the first attribute
            return self._repo.commit(sha).tree
        except (BadName, BadObject, ValueError):
            raise GitError(self._unknown(revision)) from None

    def _changes_with_lines(self, base_sha: str, head_sha: str) -> tuple[FileChange, ...]:
        # One git run for records and patch, parsed while git writes it.
        args = ("diff", "--raw", "-z", *_DIFF_OPTIONS, *_PATCH_OPTIONS, base_sha, head_sha, "--")
        proc = self._start(*args)
        try:
            changes = parse_with_lines(proc.stdout)
            proc.wait()
        except GitCommandError as exc:
            raise GitError(self._failed(args, exc)) from exc
        finally:
            if proc.poll() is None:  # parsing failed while git was still writing
                proc.kill()
                proc.wait()
        return changes

    def _git(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        config: tuple[str, ...] = (),
    ) -> bytes:
        extra = tuple(item for setting in config for item in ("-c", setting))
        try:
            return self._repo.git.execute(
                [self._repo.git.GIT_PYTHON_GIT_EXECUTABLE or "git", *_CONFIG, *extra, *args],
                stdout_as_string=False,
                strip_newline_in_stdout=False,
                env=env,
            )
        except GitCommandNotFound as exc:
            raise GitError("git is not installed or not on PATH; gradgate needs it") from exc
        except GitCommandError as exc:
            raise GitError(self._failed(args, exc)) from exc

    def _start(self, *args: str) -> git.Git.AutoInterrupt:
        command = [self._repo.git.GIT_PYTHON_GIT_EXECUTABLE or "git", *_CONFIG, *args]
        try:
            return self._repo.git.execute(command, as_process=True)
        except GitCommandNotFound as exc:
            raise GitError("git is not installed or not on PATH; gradgate needs it") from exc

    def _failed(self, args: tuple[str, ...], exc: GitCommandError) -> str:
        stderr = str(exc.stderr).strip().removeprefix("stderr: '").removesuffix("'").strip()
        return f"`git {args[0]}` failed in {self.root}: {stderr or f'exit status {exc.status}'}"

    def _unknown(self, rev: str) -> str:
        return (
            f"unknown revision '{rev}' in {self.root}: no such commit here "
            "(if it exists upstream, fetch it; a shallow clone may not have it)"
        )


def _utf8(path: str) -> bool:
    """Whether ``path`` is valid UTF-8 text (not a non-UTF-8 name carried as surrogates)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_rev(rev: str) -> None:
    # git would read "-x" as an option and "" as nothing; neither is a revision.
    if not rev or rev.startswith("-"):
        raise GitError(f"'{rev}' is not a revision")


def _exit_status(error: GitError) -> object:
    cause = error.__cause__
    return cause.status if isinstance(cause, GitCommandError) else None
