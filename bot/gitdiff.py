"""Local git for gradgate: revisions, the diff between two of them, files at a revision, checkouts.

The only module that imports GitPython. Every git failure leaves it as a GitError whose message
says what to do. Diffs are read with `git diff --raw -z` (plus `-p -U0` for line spans) through
GitPython's command runner and parsed here: GitPython's `Diff` objects took 36 s on a
100,000-file diff against 0.1 s for `git diff --raw -z` itself.

Not thread-safe (GitPython keeps a `git cat-file` process per repository): one instance per thread.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO

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
from checks.changes import ChangeStatus, FileChange, LineSpan

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

_STATUS = {
    "A": ChangeStatus.ADDED,
    "M": ChangeStatus.MODIFIED,
    "D": ChangeStatus.DELETED,
    "R": ChangeStatus.RENAMED,
    "C": ChangeStatus.COPIED,
    "T": ChangeStatus.TYPE_CHANGED,
}
_SYMLINK, _GITLINK, _NONE = "120000", "160000", "000000"
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")

# One raw record: status letter, head-side path, base-side path (renames only), the two modes.
_Raw = tuple[str, str, str | None, str, str]


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
                # Decode once: per-field decoding costs more than git's whole run on 100k files.
                fields = out.decode("utf-8", "surrogateescape").split("\0")
                return _names_only(fields)
            return self._changes_with_lines(base_sha, head_sha)
        except GitError:
            for rev in (base_sha, head_sha):
                self.resolve(rev)  # names the revision that does not exist, if one does not
            raise

    def read(self, revision: str, path: str) -> bytes | None:
        """The file's bytes at ``revision``; None when absent there, a directory or a submodule."""
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
            entry.split("\t", 1)[1] for entry in entries if entry and not entry.startswith(_GITLINK)
        )

    def _tree(self, revision: str) -> git.Tree:
        sha = revision if _FULL_SHA.fullmatch(revision) else self.resolve(revision)
        try:  # GitPython reads the object lazily, on the first attribute
            return self._repo.commit(sha).tree
        except (BadName, BadObject, ValueError):
            raise GitError(self._unknown(revision)) from None

    def _changes_with_lines(self, base_sha: str, head_sha: str) -> tuple[FileChange, ...]:
        # One git run: the raw records (NUL-separated), an empty field, then the patch. The
        # patch is read as a stream, so a huge generated file does not sit in memory whole.
        args = ("diff", "--raw", "-z", *_DIFF_OPTIONS, *_PATCH_OPTIONS, base_sha, head_sha, "--")
        proc = self._start(*args)
        try:
            raw, rest = _read_raw_part(proc.stdout)
            records = list(_raw_records(iter(raw.decode("utf-8", "surrogateescape").split("\0"))))
            changes = _attach_spans(records, _patch_sections(_chunks(rest, proc.stdout)))
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


def _check_rev(rev: str) -> None:
    # git would read "-x" as an option and "" as nothing; neither is a revision.
    if not rev or rev.startswith("-"):
        raise GitError(f"'{rev}' is not a revision")


def _exit_status(error: GitError) -> object:
    cause = error.__cause__
    return cause.status if isinstance(cause, GitCommandError) else None


def _raw_records(fields: Iterator[str]) -> Iterator[_Raw]:
    """Records of `git diff --raw -z`: ":<mode> <mode> <sha> <sha> <status>[score]" then the
    path, or the old and the new path for renames and copies. Stops at the first empty field
    (the end, or the separator before a patch)."""
    for meta in fields:
        if not meta:
            return
        letter = meta[meta.rindex(" ") + 1]
        if letter not in _STATUS:
            raise GitError(f"unexpected change status {letter!r} in `git diff` output")
        if letter in "RC":
            old = next(fields)
            yield letter, next(fields), old, meta[1:7], meta[8:14]
        else:
            yield letter, next(fields), None, meta[1:7], meta[8:14]


def _names_only(fields: list[str]) -> tuple[FileChange, ...]:
    """FileChanges from `git diff --raw -z` fields, as :func:`_raw_records` reads them.

    One flat loop: on a 100,000-file diff the Python side costs as much as git's own run, and
    most of that is building the FileChanges (~0.9 us each), so nothing else may add to it.
    """
    changes: list[FileChange] = []
    append, status, fields_ = changes.append, _STATUS, iter(fields)
    at = 0  # where the status letter sits; the same in every record, since shas are unabbreviated
    for meta in fields_:
        if not meta:
            break
        at = at or meta.rindex(" ") + 1
        letter = meta[at]
        old = next(fields_) if letter in "RC" else None
        if letter not in status:
            raise GitError(f"unexpected change status {letter!r} in `git diff` output")
        # Modes are meta[1:7] and meta[8:14]; only 120000 and 160000 have a non-zero 2nd digit.
        if meta[2] == "0" and meta[9] == "0":
            append(FileChange(next(fields_), status[letter], old))
        else:
            modes = (meta[1:7], meta[8:14])
            append(
                FileChange(
                    next(fields_),
                    status[letter],
                    old,
                    submodule=_GITLINK in modes,
                    symlink=_SYMLINK in modes,
                )
            )
    return tuple(changes)


def _read_raw_part(stream: IO[bytes]) -> tuple[bytes, bytes]:
    """Split the output at the empty field after the raw records: (raw records, what follows)."""
    buffer = bytearray()
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            return bytes(buffer), b""
        start = max(len(buffer) - 1, 0)
        buffer += chunk
        # Paths and records are never empty, so "\0\0" only occurs at the separator.
        cut = buffer.find(b"\0\0", start)
        if cut >= 0:
            return bytes(buffer[: cut + 1]), bytes(buffer[cut + 2 :])


def _chunks(head: bytes, stream: IO[bytes]) -> Iterator[bytes]:
    """``head`` and then the rest of ``stream``, in pieces that each end at a line end."""
    pending = bytearray(head)
    while chunk := stream.read(1 << 20):
        start = len(pending)
        pending += chunk
        cut = pending.rfind(b"\n", start) + 1
        if cut:
            yield bytes(pending[:cut])
            del pending[:cut]
    if pending:
        yield bytes(pending)


# The lines of a patch that matter here. Content lines start with "+", "-", " " or "\", so
# these never match inside a file's text, and a regex skips the text without a Python loop.
_MARKERS = re.compile(
    rb"^(?:(diff --git [^\n]*)|@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@|(Binary files ))",
    re.MULTILINE,
)
_Section = tuple[bytes, bool, list[LineSpan], list[LineSpan]]


def _patch_sections(chunks: Iterable[bytes]) -> Iterator[_Section]:
    """(the `diff --git` line, binary?, old spans, new spans) for each file section of a patch."""
    section: _Section | None = None
    for chunk in chunks:
        for header, old_at, old_count, new_at, new_count, binary in _MARKERS.findall(chunk):
            if header:
                if section is not None:
                    yield section
                section = (header, False, [], [])
            elif section is None:
                raise GitError("unexpected `git diff` output: patch text before a file header")
            elif binary:
                section = (section[0], True, section[2], section[3])
            else:  # a hunk "@@ -old_at,old_count +new_at,new_count @@"; a count of 1 is left out
                if old_lines := int(old_count or 1):
                    section[2].append(LineSpan(int(old_at), int(old_at) + old_lines - 1))
                if new_lines := int(new_count or 1):
                    section[3].append(LineSpan(int(new_at), int(new_at) + new_lines - 1))
    if section is not None:
        yield section


def _attach_spans(records: list[_Raw], sections: Iterator[_Section]) -> tuple[FileChange, ...]:
    """Pair raw records with their patch sections, which git writes in the same order."""
    changes: list[FileChange] = []
    for letter, path, old, old_mode, new_mode in records:
        # git splits a change of file type (file <-> symlink <-> submodule) into a deletion and
        # an addition in the patch, but reports it as one "T" record.
        split = _NONE not in (old_mode, new_mode) and old_mode[:2] != new_mode[:2]
        expected = _header(old or path, path)
        binary, old_lines, new_lines = False, [], []
        for _ in range(2 if split else 1):
            section = next(sections, None)
            if section is None or section[0] != expected:
                got = "the end" if section is None else repr(section[0])
                raise GitError(f"unexpected `git diff` output: wanted {expected!r}, got {got}")
            binary = binary or section[1]
            old_lines += section[2]
            new_lines += section[3]
        submodule = _GITLINK in (old_mode, new_mode)
        spans = not (binary or submodule)  # a gitlink's "Subproject commit" line is no file line
        changes.append(
            FileChange(
                path,
                _STATUS[letter],
                old,
                old_lines=tuple(old_lines) if spans else (),
                new_lines=tuple(new_lines) if spans else (),
                binary=binary,
                submodule=submodule,
                symlink=_SYMLINK in (old_mode, new_mode),
            )
        )
    if next(sections, None) is not None:
        raise GitError("unexpected `git diff` output: more file sections than changed files")
    return tuple(changes)


def _header(old: str, new: str) -> bytes:
    return b"diff --git " + _quote("a/" + old) + b" " + _quote("b/" + new)


# git's C-style quoting of a path (quote.c) with core.quotepath=false: bytes >= 0x80 stay as is.
_MUST_QUOTE = re.compile(rb'[\x00-\x1f"\\\x7f]')
_ESCAPES = {
    b"\a": b"a",
    b"\b": b"b",
    b"\t": b"t",
    b"\n": b"n",
    b"\v": b"v",
    b"\f": b"f",
    b"\r": b"r",
}


def _escape(match: re.Match[bytes]) -> bytes:
    char = match.group()
    if char in b'"\\':
        return b"\\" + char
    return b"\\" + (_ESCAPES.get(char) or b"%03o" % ord(char))


def _quote(path: str) -> bytes:
    raw = path.encode("utf-8", "surrogateescape")
    if _MUST_QUOTE.search(raw) is None:
        return raw
    return b'"' + _MUST_QUOTE.sub(_escape, raw) + b'"'
