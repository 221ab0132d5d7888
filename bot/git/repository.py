"""Local git for gradgate: revisions, the diff between two of them, files at a revision, checkouts.

The only module that imports GitPython. Every git failure leaves it as a GitError whose message
says what to do. Diffs are read with `git diff --raw -z` (plus `-p -U0` for line spans) through
GitPython's command runner, with bot.git.cmdline's command lines, and parsed by bot.git.parse:
GitPython's `Diff` objects took 36 s on 100,000 files against 0.1 s for `git diff` itself.

Not thread-safe (GitPython keeps a `git cat-file` process per repository): one instance per thread.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import git
from git.exc import GitCommandError, GitCommandNotFound
from gradgate.bot.git import cmdline as gitcmd
from gradgate.bot.git.parse import GITLINK, parse_with_lines, read_name_status
from gradgate.checks.diff import FileChange
from gradgate.checks.errors import GitError


@functools.cache
def _empty_dir() -> str:
    """One empty directory per process, removed at exit: the work tree isolated diffs run in."""
    path = tempfile.mkdtemp(prefix="gradgate-empty-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


class GitRepository:
    """A local clone (working tree or bare mirror); implements checks.base.RevisionSource."""

    def __init__(self, path: Path) -> None:
        try:
            self._repo = git.Repo(path, search_parent_directories=True)
        except git.exc.NoSuchPathError as exc:
            raise GitError(f"{path} does not exist, so it is not a git repository") from exc
        except git.exc.InvalidGitRepositoryError as exc:
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
        gitcmd.check_rev(rev)
        return self._answer(
            self._unknown(rev), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"
        )

    def tree(self, revision: str) -> str:
        """The id of the tree of the commit ``revision`` names (``rev-parse <rev>^{tree}``)."""
        gitcmd.check_rev(revision)
        return self._answer(
            self._unknown(revision), "rev-parse", "--verify", "--quiet", f"{revision}^{{tree}}"
        )

    def merge_base(self, base: str, head: str) -> str:
        """The best common ancestor of ``base`` and ``head``: where the PR's diff starts."""
        base_sha, head_sha = self.resolve(base), self.resolve(head)
        unrelated = (
            f"'{base}' and '{head}' have no common ancestor in {self.root}: unrelated "
            "histories, or a shallow clone too shallow to reach one (fetch more history)"
        )
        return self._answer(unrelated, "merge-base", base_sha, head_sha)

    def diff_range(self, base: str, head: str) -> tuple[str, str]:
        """(merge-base of ``base`` and ``head``, ``head``) as full SHAs: a pull request's diff.

        One git run (bot.git.cmdline.range_query); what it does not settle (no merge base, several,
        an unknown revision) takes resolve + merge-base, whose errors say what is wrong.
        """
        gitcmd.check_rev(base, head)
        if (query := gitcmd.range_query(base, head)) is not None:
            with contextlib.suppress(GitError):
                if (settled := gitcmd.read_range(self._git(*query))) is not None:
                    return settled
        head_sha = self.resolve(head)
        return self.merge_base(self.resolve(base), head_sha), head_sha

    def changes(self, base_sha: str, head_sha: str) -> tuple[FileChange, ...]:
        """The diff ``base_sha..head_sha`` between the two endpoints exactly as given, with the
        changed line spans of each file.

        For a pull request pass ``merge_base(base, head)`` as ``base_sha``; this method takes no
        merge base itself. The planner, which needs paths only, uses :meth:`changed_paths`.
        """
        gitcmd.check_rev(base_sha, head_sha)
        try:
            # One git run for records and patch, parsed while git writes it.
            args = (*gitcmd.PATCH_DIFF, base_sha, head_sha, "--")
            return gitcmd.read(self._start(*args, isolated=True), parse_with_lines)
        except GitError:
            self._name_unknown(base_sha, head_sha)
            raise

    def changed_paths(self, base_sha: str, head_sha: str) -> tuple[list[str], int]:
        """The paths ``base_sha..head_sha`` touches (a rename under both) and how many files:
        all the planner needs of a diff, without the patch :meth:`changes` reads."""
        gitcmd.check_rev(base_sha, head_sha)
        args = (*gitcmd.NAME_STATUS_DIFF, base_sha, head_sha, "--")
        try:
            return gitcmd.read(self._start(*args, isolated=True), read_name_status)
        except GitError:
            self._name_unknown(base_sha, head_sha)
            raise

    def read(self, revision: str, path: str) -> bytes | None:
        """The file's bytes at ``revision``; None when absent there, a directory or a submodule."""
        if not gitcmd.batchable(path):
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

    def entry(self, revision: str, path: str) -> tuple[int, int] | None:
        """(mode, size) of what ``path`` names at ``revision`` (mode as git writes it: 0o100644 a
        file, 0o120000 a symlink, 0o160000 a submodule, 0o40000 a directory), or None if absent.

        For what must be checked before it is read: a symlink's blob is its target's name."""
        try:
            item = self._tree(revision).join(path)
        except KeyError:
            return None
        size = int(item.size) if item.type == "blob" else 0
        return int(item.mode), size

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
            add = ("worktree", "add", "--detach", "--quiet", "--", str(tree), sha)
            self._git(*add, env={"GIT_LFS_SKIP_SMUDGE": "1"}, config=("core.sparseCheckout=false",))
            yield tree
        finally:
            with contextlib.suppress(GitError):
                self._git("worktree", "remove", "--force", "--force", "--", str(tree))
            shutil.rmtree(holder, ignore_errors=True)
            with contextlib.suppress(GitError):
                self._git("worktree", "prune")

    def mentions(self, sha: str, words: tuple[str, ...]) -> bool:
        """Whether any file at the commit ``sha`` holds one of ``words`` (as plain text, case
        and all): `git grep` on the commit's tree, never the work tree; binary files included."""
        gitcmd.check_rev(sha)
        patterns = [item for word in words for item in ("-e", word)]
        try:
            self._git("grep", "-q", "-a", "-F", "--no-textconv", *patterns, sha, "--")
        except GitError as error:
            cause = error.__cause__
            if isinstance(cause, GitCommandError) and cause.status == 1:
                return False  # git grep's "nothing found"
            raise
        return True

    def list_files(self, revision: str) -> tuple[str, ...]:
        """Every file path at ``revision`` that :meth:`read` returns bytes for (no submodules)."""
        out = self._git("ls-tree", "-r", "-z", "--full-tree", self.resolve(revision))
        entries = out.decode("utf-8", "surrogateescape").split("\0")
        # Each entry is "<mode> <type> <sha>\t<path>".
        return tuple(e.split("\t", 1)[1] for e in entries if e and not e.startswith(GITLINK))

    def listing(self, sha: str) -> str:
        """Every path git tracks at the commit ``sha`` (a full SHA), submodules and every
        directory above them included, in git's order, each ended by a NUL. For
        bot.plan.zones.gaps."""
        gitcmd.check_rev(sha)
        started = self._start(*gitcmd.LS_TREE, sha)
        return gitcmd.read(started, lambda out: out.read().decode("utf-8", "surrogateescape"))

    def _tree(self, revision: str) -> git.Tree:
        sha = revision if gitcmd.FULL_SHA.fullmatch(revision) else self.resolve(revision)
        try:  # GitPython reads the object lazily, on the first attribute
            return self._repo.commit(sha).tree
        except (git.exc.BadName, git.exc.BadObject, ValueError):
            raise GitError(self._unknown(revision)) from None

    def _wait(self, proc: git.Git.AutoInterrupt, args: tuple[str, ...]) -> None:
        try:
            proc.wait()  # GitPython's: raises when git's status is not 0, a kill's included
        except GitCommandError as exc:
            raise GitError(self._failed(args, exc)) from exc

    def _answer(self, missing: str, *args: str) -> str:
        """git's output as text; its exit status 1, "no such thing", is GitError(``missing``)."""
        try:
            return self._git(*args).decode().strip()
        except GitError as error:
            cause = error.__cause__
            if isinstance(cause, GitCommandError) and cause.status == 1:
                raise GitError(missing) from None
            raise  # anything else (a broken repository) speaks for itself

    def _name_unknown(self, *revs: str) -> None:
        """Raise a GitError naming the first of ``revs`` that does not exist, if one does not."""
        for rev in revs:
            self.resolve(rev)

    def _git(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        config: tuple[str, ...] = (),
    ) -> bytes:
        extra = tuple(item for setting in config for item in ("-c", setting))
        try:
            return self._repo.git.execute(
                [self._repo.git.GIT_PYTHON_GIT_EXECUTABLE or "git", *gitcmd.CONFIG, *extra, *args],
                stdout_as_string=False,
                strip_newline_in_stdout=False,
                env=env,
            )
        except GitCommandNotFound as exc:
            raise GitError("git is not installed or not on PATH; gradgate needs it") from exc
        except GitCommandError as exc:
            raise GitError(self._failed(args, exc)) from exc

    def _start(self, *args: str, isolated: bool = False) -> gitcmd.Started:
        """git started with ``args``; ``isolated``: outside the work tree (no `.gitattributes`
        from a checkout, nor the index's), see bot.git.cmdline.outside_worktree."""
        options: tuple[str, ...] = ()
        env = None
        if isolated:
            options = gitcmd.outside_worktree(str(self._repo.git_dir), _empty_dir())
            env = {"GIT_INDEX_FILE": os.path.join(_empty_dir(), "index")}  # none: not read
        command = [self._repo.git.GIT_PYTHON_GIT_EXECUTABLE or "git", *gitcmd.CONFIG, *options]
        command += args
        try:
            proc = self._repo.git.execute(command, as_process=True, env=env)
        except GitCommandNotFound as exc:
            raise GitError("git is not installed or not on PATH; gradgate needs it") from exc
        return gitcmd.Started(proc.stdout, proc.poll, proc.kill, lambda: self._wait(proc, args))

    def _failed(self, args: tuple[str, ...], exc: GitCommandError) -> str:
        stderr = str(exc.stderr).strip().removeprefix("stderr: '").removesuffix("'").strip()
        return f"`git {args[0]}` failed in {self.root}: {stderr or f'exit status {exc.status}'}"

    def _unknown(self, rev: str) -> str:
        return (
            f"unknown revision '{rev}' in {self.root}: no such commit here "
            "(if it exists upstream, fetch it; a shallow clone may not have it)"
        )
