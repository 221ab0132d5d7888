"""bot.git.repository against real git repositories built in temp dirs."""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from gradgate.bot.git import cmdline as gitcmd
from gradgate.bot.git import repository as gitdiff
from gradgate.bot.git.parse import read_name_status
from gradgate.bot.git.repository import GitRepository
from gradgate.checks.context import RevisionSource
from gradgate.checks.diff import ChangeStatus, FileChange, LineSpan
from gradgate.checks.errors import GitError

from tests.gitrepo import GitRepo

TEN_LINES = "".join(f"line {n}\n" for n in range(1, 11))


def diff(repo: GitRepo, base: str, head: str) -> tuple[FileChange, ...]:
    return GitRepository(repo.root).changes(base, head)


def only(changes: tuple[FileChange, ...]) -> FileChange:
    assert len(changes) == 1, changes
    return changes[0]


def spans(*pairs: tuple[int, int]) -> tuple[LineSpan, ...]:
    return tuple(LineSpan(start, end) for start, end in pairs)


def two_commits(
    repo: GitRepo, base_files: dict[str, str], head_files: dict[str, str]
) -> tuple[str, str]:
    """A base commit with ``base_files`` and a head commit where the tree is ``head_files``."""
    repo.write("README", "readme\n")
    for path, text in base_files.items():
        repo.write(path, text)
    base = repo.commit("base")
    for path in set(base_files) - set(head_files):
        repo.remove(path)
    for path, text in head_files.items():
        repo.write(path, text)
    return base, repo.commit("head")


def gitlink(repo: GitRepo, path: str, sha: str) -> None:
    """Record a submodule at ``path`` pointing at ``sha`` without cloning anything."""
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{sha},{path}")


def commit_index(repo: GitRepo, message: str) -> str:
    # GitRepo.commit runs `add -A`, which would drop a gitlink that has no directory.
    repo.git("commit", "-q", "-m", message)
    return repo.git("rev-parse", "HEAD")


# --- statuses and line spans -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head_text", "old_lines", "new_lines"),
    [
        pytest.param(
            TEN_LINES.replace("line 4\n", "line four\n"), spans((4, 4)), spans((4, 4)), id="edit"
        ),
        pytest.param(
            TEN_LINES.replace("line 3\n", "line 3\nnew a\nnew b\n"), (), spans((4, 5)), id="insert"
        ),
        pytest.param(
            TEN_LINES.replace("line 5\nline 6\nline 7\n", ""), spans((5, 7)), (), id="delete"
        ),
        pytest.param(
            # three hunks: an edit at 2, a deletion of 5-6, an insertion after 8
            TEN_LINES.replace("line 2\n", "two\n")
            .replace("line 5\nline 6\n", "")
            .replace("line 8\n", "line 8\nx\ny\n"),
            spans((2, 2), (5, 6)),
            spans((2, 2), (7, 8)),
            id="three-hunks",
        ),
        pytest.param(
            TEN_LINES.replace("line 10\n", "line 10"),
            spans((10, 10)),
            spans((10, 10)),
            id="newline-at-eof-removed",
        ),
    ],
)
def test_modified_file_reports_changed_lines_in_base_and_head_numbering(
    repo: GitRepo, head_text: str, old_lines: tuple[LineSpan, ...], new_lines: tuple[LineSpan, ...]
) -> None:
    base, head = two_commits(repo, {"model.py": TEN_LINES}, {"model.py": head_text})

    change = only(diff(repo, base, head))

    assert change == FileChange(
        "model.py", ChangeStatus.MODIFIED, old_lines=old_lines, new_lines=new_lines
    )


def test_added_file_has_only_new_lines(repo: GitRepo) -> None:
    base, head = two_commits(repo, {}, {"pkg/new.py": "a\nb\nc\n"})

    change = only(diff(repo, base, head))

    assert change == FileChange("pkg/new.py", ChangeStatus.ADDED, new_lines=spans((1, 3)))
    assert (change.base_path, change.head_path) == (None, "pkg/new.py")


def test_added_empty_file_has_no_spans(repo: GitRepo) -> None:
    base, head = two_commits(repo, {}, {"empty.py": ""})

    assert only(diff(repo, base, head)) == FileChange("empty.py", ChangeStatus.ADDED)


def test_deleted_file_has_only_old_lines_and_reads_as_absent_at_head(repo: GitRepo) -> None:
    base, head = two_commits(repo, {"old.py": "x\ny\n"}, {})
    source = GitRepository(repo.root)

    change = only(source.changes(base, head))

    assert change == FileChange("old.py", ChangeStatus.DELETED, old_lines=spans((1, 2)))
    assert (change.base_path, change.head_path) == ("old.py", None)
    assert source.read(head, "old.py") is None
    assert source.read(base, "old.py") == b"x\ny\n"


def test_pure_rename_counts_under_both_paths(repo: GitRepo) -> None:
    base, _ = two_commits(repo, {"src/loss.py": TEN_LINES}, {"src/loss.py": TEN_LINES})
    repo.move("src/loss.py", "losses/loss.py")
    head = repo.commit("move")

    change = only(diff(repo, base, head))

    assert change == FileChange("losses/loss.py", ChangeStatus.RENAMED, old_path="src/loss.py")
    assert change.paths == ("src/loss.py", "losses/loss.py")


def test_rename_with_edit_counts_under_both_paths_with_spans_on_each_side(repo: GitRepo) -> None:
    base, _ = two_commits(repo, {"src/loss.py": TEN_LINES}, {"src/loss.py": TEN_LINES})
    repo.move("src/loss.py", "losses/loss.py")
    repo.write("losses/loss.py", TEN_LINES.replace("line 9\n", "line nine\n"))
    head = repo.commit("move and edit")

    change = only(diff(repo, base, head))

    assert change.status is ChangeStatus.RENAMED
    assert change.paths == ("src/loss.py", "losses/loss.py")
    assert (change.old_lines, change.new_lines) == (spans((9, 9)), spans((9, 9)))


def test_copy_is_reported_as_an_addition_so_its_source_triggers_nothing(repo: GitRepo) -> None:
    # Copy detection (-C) is off on purpose: the source of a copy was not edited.
    base, head = two_commits(
        repo, {"a.py": TEN_LINES}, {"a.py": TEN_LINES + "more\n", "b.py": TEN_LINES}
    )

    changes = diff(repo, base, head)

    assert [(c.path, c.status, c.old_path) for c in changes] == [
        ("a.py", ChangeStatus.MODIFIED, None),
        ("b.py", ChangeStatus.ADDED, None),
    ]


def test_binary_file_is_flagged_without_spans(repo: GitRepo) -> None:
    repo.write("weights.bin", b"\x00\x01\x02" * 100)
    base = repo.commit("base")
    repo.write("weights.bin", b"\x00\x01\x03" * 100)
    head = repo.commit("head")

    change = only(diff(repo, base, head))

    assert change == FileChange("weights.bin", ChangeStatus.MODIFIED, binary=True)


def test_mode_change_is_a_modification_without_spans(repo: GitRepo) -> None:
    repo.write("train.sh", "echo hi\n")
    base = repo.commit("base")
    (repo.root / "train.sh").chmod(0o755)
    head = repo.commit("chmod")

    assert only(diff(repo, base, head)) == FileChange("train.sh", ChangeStatus.MODIFIED)


def test_symlink_is_flagged_and_its_target_is_its_content(repo: GitRepo) -> None:
    repo.write("real.py", "x\n")
    base = repo.commit("base")
    (repo.root / "link.py").symlink_to("real.py")
    head = repo.commit("link")
    source = GitRepository(repo.root)

    change = only(source.changes(base, head))

    assert change == FileChange(
        "link.py", ChangeStatus.ADDED, new_lines=spans((1, 1)), symlink=True
    )
    assert source.read(head, "link.py") == b"real.py"


def test_file_replaced_by_symlink_is_one_type_change(repo: GitRepo) -> None:
    repo.write("real.py", "x\n")
    repo.write("config.py", "a\nb\n")
    base = repo.commit("base")
    (repo.root / "config.py").unlink()
    (repo.root / "config.py").symlink_to("real.py")
    head = repo.commit("now a link")

    change = only(diff(repo, base, head))

    assert change == FileChange(
        "config.py",
        ChangeStatus.TYPE_CHANGED,
        old_lines=spans((1, 2)),
        new_lines=spans((1, 1)),
        symlink=True,
    )


def test_submodule_change_is_flagged_without_spans(repo: GitRepo) -> None:
    first = repo.commit("first")
    second = repo.commit("second")
    gitlink(repo, "vendor/lib", first)
    base = commit_index(repo, "add submodule")
    gitlink(repo, "vendor/lib", second)
    head = commit_index(repo, "bump submodule")
    source = GitRepository(repo.root)

    assert only(source.changes(first, base)) == FileChange(
        "vendor/lib", ChangeStatus.ADDED, submodule=True
    )
    assert only(source.changes(base, head)) == FileChange(
        "vendor/lib", ChangeStatus.MODIFIED, submodule=True
    )
    assert source.read(head, "vendor/lib") is None
    assert "vendor/lib" not in source.list_files(head)


ODD_PATHS = [
    "with space/my file.py",
    "modèle/é.py",
    "new\nline.py",
    "tab\there.py",
    'quote"d.py',
    "back\\slash.py",
    "escape\x1b.py",
    "-dash.py",
    ":colon.py",
    os.fsdecode(b"latin1-caf\xe9.py"),  # not UTF-8: git keeps bytes, we keep surrogates
]


@pytest.mark.parametrize("path", ODD_PATHS, ids=repr)
def test_odd_paths_come_back_exactly(repo: GitRepo, path: str) -> None:
    base, _ = two_commits(
        repo, {path: "a\n", "renamed.py": TEN_LINES}, {path: "a\n", "renamed.py": TEN_LINES}
    )
    repo.write(path, "a\nb\n")
    repo.move("renamed.py", f"{path}.moved")
    head = repo.commit("edit and move")
    source = GitRepository(repo.root)

    changes = source.changes(base, head)

    by_path = {c.path: c for c in changes}
    assert set(by_path) == {path, f"{path}.moved"}
    assert by_path[f"{path}.moved"].old_path == "renamed.py"
    assert by_path[path].new_lines == spans((2, 2))
    paths = source.changed_paths(base, head)[0]
    assert sorted(paths) == sorted([path, "renamed.py", f"{path}.moved"])
    assert source.read(head, path) == b"a\nb\n"
    assert path in source.list_files(head)


def test_names_only_agrees_with_full_read_except_spans_and_binary(repo: GitRepo) -> None:
    repo.write("keep.py", TEN_LINES)
    repo.write("gone.py", "x\n")
    repo.write("blob.bin", b"\x00" * 10)
    base = repo.commit("base")
    repo.write("keep.py", TEN_LINES + "x\n")
    repo.remove("gone.py")
    repo.move("blob.bin", "moved.bin")
    repo.write("new.py", "n\n")
    (repo.root / "link").symlink_to("keep.py")
    head = repo.commit("head")
    source = GitRepository(repo.root)

    full = source.changes(base, head)
    paths, files = source.changed_paths(base, head)

    assert sorted(paths) == sorted(p for c in full for p in c.paths)
    assert files == len(full)
    assert {c.path for c in full} == {"gone.py", "keep.py", "link", "moved.bin", "new.py"}


def test_empty_diff_is_empty(repo: GitRepo) -> None:
    repo.write("a.py", "a\n")
    sha = repo.commit("only")
    source = GitRepository(repo.root)

    assert source.changes(sha, sha) == ()
    assert source.changed_paths(sha, sha) == ([], 0)


def test_user_git_config_does_not_change_the_result(repo: GitRepo) -> None:
    base, _ = two_commits(
        repo, {"src/a b.py": TEN_LINES, "é.py": "x\n"}, {"src/a b.py": TEN_LINES, "é.py": "x\n"}
    )
    repo.move("src/a b.py", "dst/a b.py")
    repo.write("dst/a b.py", TEN_LINES.replace("line 2\n", "two\n").replace("line 6\n", "six\n"))
    repo.write("é.py", "y\n")
    repo.git("add", "-A")
    gitlink(repo, "vendor/lib", base)
    head = commit_index(repo, "head")
    before = diff(repo, base, head)

    for key, value in [
        ("diff.noprefix", "true"),
        ("diff.mnemonicPrefix", "true"),
        ("diff.renames", "false"),
        ("diff.renameLimit", "1"),
        ("diff.context", "7"),
        ("diff.interHunkContext", "20"),
        ("diff.algorithm", "patience"),
        ("diff.relative", "true"),
        ("diff.submodule", "log"),
        ("diff.ignoreSubmodules", "all"),
        ("diff.external", "false"),
        ("core.quotePath", "true"),
        ("color.ui", "always"),
        ("color.diff", "always"),
    ]:
        repo.git("config", key, value)

    assert diff(repo, base, head) == before
    paths = GitRepository(repo.root).changed_paths(base, head)
    assert paths == ([p for c in before for p in c.paths], len(before))
    assert [(c.path, c.submodule) for c in before] == [
        ("dst/a b.py", False),
        ("vendor/lib", True),
        ("é.py", False),
    ]
    assert before[0].old_lines == spans((2, 2), (6, 6))


# --- revisions and errors ----------------------------------------------------------------------


def test_resolve_gives_full_shas(repo: GitRepo) -> None:
    first = repo.commit("one")
    second = repo.commit("two")
    source = GitRepository(repo.root)

    assert source.resolve("HEAD") == second
    assert source.resolve("main~1") == first
    assert source.resolve(first[:8]) == first


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda s, good: s.resolve("no-such-branch"), id="resolve"),
        pytest.param(lambda s, good: s.changes("no-such-branch", good), id="changes-base"),
        pytest.param(lambda s, good: s.changes(good, "no-such-branch"), id="changes-head"),
        pytest.param(lambda s, good: s.merge_base(good, "no-such-branch"), id="merge-base"),
        pytest.param(lambda s, good: s.diff_range(good, "no-such-branch"), id="range-head"),
        pytest.param(lambda s, good: s.diff_range("no-such-branch", good), id="range-base"),
        pytest.param(lambda s, good: s.changed_paths(good, "no-such-branch"), id="paths"),
        pytest.param(lambda s, good: s.read("no-such-branch", "a.py"), id="read"),
        pytest.param(lambda s, good: s.list_files("no-such-branch"), id="list-files"),
        pytest.param(lambda s, good: s.checkout("no-such-branch").__enter__(), id="checkout"),
    ],
)
def test_unknown_revision_is_a_git_error_naming_it(
    repo: GitRepo, call: Callable[[GitRepository, str], object]
) -> None:
    repo.write("a.py", "a\n")
    good = repo.commit("one")

    with pytest.raises(GitError, match="unknown revision 'no-such-branch'"):
        call(GitRepository(repo.root), good)


@pytest.mark.parametrize("rev", ["", "--output=/tmp/x", "-p"])
def test_option_like_revision_is_rejected(repo: GitRepo, rev: str) -> None:
    sha = repo.commit("one")

    with pytest.raises(GitError, match="is not a revision"):
        GitRepository(repo.root).changes(rev, sha)


def test_unknown_sha_read_is_a_git_error(repo: GitRepo) -> None:
    repo.commit("one")

    with pytest.raises(GitError, match=f"unknown revision '{'0' * 40}'"):
        GitRepository(repo.root).read("0" * 40, "a.py")


def test_directory_that_is_not_a_repository_is_a_git_error(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()

    with pytest.raises(GitError, match="is not a git repository"):
        GitRepository(tmp_path / "plain")
    with pytest.raises(GitError, match="does not exist"):
        GitRepository(tmp_path / "missing")


def test_subdirectory_opens_the_whole_repository(repo: GitRepo) -> None:
    repo.write("pkg/a.py", "a\n")
    repo.commit("one")

    assert GitRepository(repo.root / "pkg").root == repo.root


def test_merge_base_is_the_fork_point(repo: GitRepo) -> None:
    fork = repo.commit("fork")
    repo.branch("feature")
    repo.write("f.py", "f\n")
    feature = repo.commit("feature work")
    repo.checkout("main")
    repo.write("m.py", "m\n")
    main = repo.commit("main work")
    source = GitRepository(repo.root)

    assert source.merge_base("main", "feature") == fork
    assert source.merge_base(main, feature) == fork
    # the PR diff: only what the feature branch did
    assert [c.path for c in source.changes(source.merge_base(main, feature), feature)] == ["f.py"]


def test_unrelated_histories_have_no_merge_base(repo: GitRepo) -> None:
    repo.write("a.py", "a\n")
    main = repo.commit("main")
    repo.git("checkout", "-q", "--orphan", "other")
    repo.write("b.py", "b\n")
    other = repo.commit("other root")

    with pytest.raises(GitError, match="no common ancestor"):
        GitRepository(repo.root).merge_base(main, other)
    with pytest.raises(GitError, match="no common ancestor"):
        GitRepository(repo.root).diff_range("main", "other")


def criss_cross(repo: GitRepo) -> None:
    """Branches `left` and `right` that each merged the other: two best merge bases."""
    repo.commit("root")
    for side in ("left", "right"):
        repo.branch(side, "main")
        repo.write(f"{side}.py", f"{side}\n")
        repo.commit(side)
    repo.checkout("left")
    repo.git("merge", "-q", "--no-edit", "right")  # right's own commit, before it merges
    repo.checkout("right")
    repo.git("merge", "-q", "--no-edit", "left~1")  # left's own commit, before it merged
    for side in ("left", "right"):
        repo.checkout(side)
        repo.write(f"{side}2.py", "more\n")
        repo.commit(f"{side} again")


@pytest.mark.parametrize(
    ("base", "head"),
    [
        ("main", "feature"),  # main moved on after the fork
        ("feature", "main"),
        ("main", "main"),  # the same commit: an empty diff
        ("main~1", "main"),  # head is ahead: the merge base is base itself
        ("main", "feature~1"),
    ],
)
def test_diff_range_is_the_merge_base_and_the_head(repo: GitRepo, base: str, head: str) -> None:
    repo.commit("fork")
    repo.branch("feature")
    repo.write("f.py", "f\n")
    repo.commit("feature work")
    repo.checkout("main")
    repo.write("m.py", "m\n")
    repo.commit("main work")
    source = GitRepository(repo.root)

    expected = (source.merge_base(base, head), source.resolve(head))
    assert source.diff_range(base, head) == expected


def test_diff_range_with_two_merge_bases_picks_the_one_merge_base_picks(repo: GitRepo) -> None:
    criss_cross(repo)
    source = GitRepository(repo.root)
    assert len(repo.git("merge-base", "--all", "left", "right").split()) == 2

    for base, head in (("left", "right"), ("right", "left")):
        assert source.diff_range(base, head) == (
            source.merge_base(base, head),
            source.resolve(head),
        )


@pytest.mark.parametrize("rev", ["main..main", "main...main", "HEAD:a.py"])
def test_diff_range_of_what_is_not_a_commit_is_an_unknown_revision(repo: GitRepo, rev: str) -> None:
    repo.write("a.py", "a\n")
    repo.commit("one")

    with pytest.raises(GitError, match="unknown revision"):
        GitRepository(repo.root).diff_range("main", rev)


def test_a_parse_failure_mid_diff_reaches_the_caller_and_stops_git(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = repo.commit("base")
    repo.write("big.py", "".join(f"x{n} = {n}\n" for n in range(200_000)))  # ~2 MB of patch
    head = repo.commit("head")
    started: list[gitcmd.Started] = []
    start = GitRepository._start

    def recording_start(self: GitRepository, *args: str, isolated: bool = False) -> gitcmd.Started:
        started.append(start(self, *args, isolated=isolated))
        return started[-1]

    def parse_then_give_up(stream: IO[bytes]) -> tuple[FileChange, ...]:
        stream.read(1 << 16)  # git, with far more to write, is blocked on the pipe
        raise GitError("unexpected `git diff` output: the parser gave up here")

    monkeypatch.setattr(GitRepository, "_start", recording_start)
    monkeypatch.setattr(gitdiff, "parse_with_lines", parse_then_give_up)

    with pytest.raises(GitError, match="the parser gave up here"):
        GitRepository(repo.root).changes(base, head)
    assert [git.poll() for git in started] == [-signal.SIGKILL]  # stopped mid-write, and reaped


class ScriptedGit:
    """A git process as gitcmd.Started sees it: running until killed, or exited with a status."""

    def __init__(self, status: int | None) -> None:
        self.status = status

    def started(self) -> gitcmd.Started:
        return gitcmd.Started(io.BytesIO(b"output"), self.poll, self.kill, self.wait)

    def poll(self) -> int | None:
        return self.status

    def kill(self) -> None:
        if self.status is None:
            self.status = -signal.SIGKILL

    def wait(self) -> None:
        if self.status is None:
            raise AssertionError("waited for a git still writing: a deadlock")
        if self.status:
            raise GitError(f"git failed: exit status {self.status}")


def give_up(stream: IO[bytes]) -> str:
    raise GitError("the parser gave up")


@pytest.mark.parametrize(
    ("status", "reader", "news"),
    [
        pytest.param(None, give_up, "the parser gave up", id="reader-fails-while-git-writes"),
        pytest.param(0, give_up, "the parser gave up", id="reader-fails-git-succeeded"),
        pytest.param(128, give_up, "exit status 128", id="reader-fails-after-git-failed"),
        pytest.param(128, lambda out: out.read(), "exit status 128", id="git-failed"),
    ],
)
def test_reading_git_reports_the_reader_unless_git_failed_on_its_own(
    status: int | None, reader: Callable[[IO[bytes]], object], news: str
) -> None:
    git = ScriptedGit(status)

    with pytest.raises(GitError, match=news):
        gitcmd.read(git.started(), reader)
    assert git.status is not None  # never left running


def test_reading_git_gives_the_readers_result_once_git_succeeded() -> None:
    assert gitcmd.read(ScriptedGit(0).started(), lambda out: out.read()) == b"output"


# --- files at a revision -----------------------------------------------------------------------


def test_read_returns_bytes_or_none(repo: GitRepo) -> None:
    repo.write("pkg/model.py", "v1\n")
    first = repo.commit("one")
    repo.write("pkg/model.py", "v2\n")
    second = repo.commit("two")
    source = GitRepository(repo.root)

    assert source.read(first, "pkg/model.py") == b"v1\n"
    assert source.read("HEAD", "pkg/model.py") == b"v2\n"
    assert source.read(second, "pkg") is None  # a directory
    assert source.read(second, "pkg/missing.py") is None
    assert source.read(second, "pkg/model.py/x") is None
    assert source.read(second, "") is None


def test_list_files_lists_the_tree_at_the_revision(repo: GitRepo) -> None:
    repo.write("a.py", "a\n")
    repo.write("deep/er/b.py", "b\n")
    first = repo.commit("one")
    repo.remove("a.py")
    repo.commit("two")

    assert GitRepository(repo.root).list_files(first) == ("a.py", "deep/er/b.py")
    assert GitRepository(repo.root).list_files("HEAD") == ("deep/er/b.py",)


def test_repository_is_a_revision_source(repo: GitRepo) -> None:
    repo.commit("one")
    source: RevisionSource = GitRepository(repo.root)

    assert source.read("HEAD", "nothing") is None


# --- checkout ----------------------------------------------------------------------------------


def user_state(repo: GitRepo) -> tuple[str, str, str, bytes]:
    return (
        repo.git("status", "--porcelain=v1", "--untracked-files=all"),
        repo.git("worktree", "list", "--porcelain"),
        repo.git("rev-parse", "HEAD"),
        (repo.root / ".git" / "index").read_bytes(),
    )


@pytest.fixture
def dirty_repo(repo: GitRepo) -> tuple[GitRepo, str]:
    """A repo with an old revision, and uncommitted staged and unstaged work on top of HEAD."""
    repo.write("model.py", "old\n")
    repo.write("gone.py", "gone\n")
    old = repo.commit("old")
    repo.write("model.py", "new\n")
    repo.remove("gone.py")
    repo.commit("new")
    repo.write("staged.py", "s\n")
    repo.git("add", "staged.py")
    repo.write("model.py", "uncommitted\n")
    repo.write("untracked.txt", "u\n")
    return repo, old


def test_checkout_gives_the_tree_at_the_revision_and_leaves_the_user_alone(
    dirty_repo: tuple[GitRepo, str],
) -> None:
    repo, old = dirty_repo
    before = user_state(repo)
    source = GitRepository(repo.root)

    with source.checkout(old) as tree:
        assert (tree / "model.py").read_text() == "old\n"
        assert (tree / "gone.py").read_text() == "gone\n"
        assert not (tree / "staged.py").exists()
        assert not (tree / "untracked.txt").exists()
        assert tree.resolve() != repo.root.resolve()
        assert not tree.resolve().is_relative_to(repo.root.resolve())

    assert not tree.exists()
    assert not tree.parent.exists()
    assert user_state(repo) == before
    assert (repo.root / "model.py").read_text() == "uncommitted\n"


def test_checkout_cleans_up_when_the_body_raises(dirty_repo: tuple[GitRepo, str]) -> None:
    repo, old = dirty_repo
    before = user_state(repo)

    with pytest.raises(RuntimeError, match="boom"), GitRepository(repo.root).checkout(old) as tree:
        (tree / "scratch.txt").write_text("left behind?")
        raise RuntimeError("boom")

    assert not tree.parent.exists()
    assert user_state(repo) == before


def test_checkout_cleans_up_when_the_body_deleted_the_tree(repo: GitRepo) -> None:
    sha = repo.commit("one")
    before = user_state(repo)

    with GitRepository(repo.root).checkout(sha) as tree:
        shutil.rmtree(tree)

    assert not tree.parent.exists()
    assert user_state(repo) == before


def test_bare_mirror_diffs_and_checks_out(
    make_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    repo = make_repo()
    repo.write("a.py", "a\n")
    base = repo.commit("one")
    repo.write("a.py", "a\nb\n")
    head = repo.commit("two")
    mirror = tmp_path / "mirror.git"
    repo.git("clone", "-q", "--mirror", str(repo.root), str(mirror))
    source = GitRepository(mirror)

    assert only(source.changes(base, head)).new_lines == spans((2, 2))
    with source.checkout(base) as tree:
        assert (tree / "a.py").read_text() == "a\n"
    assert source.root == mirror


# --- scale -------------------------------------------------------------------------------------


def fast_import(repo: GitRepo, stream: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.devnull}
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=repo.root, env=env, input=stream.encode(), check=True
    )


def big_path(n: int) -> str:
    return f"pkg{n % 97}/layer{n % 13}/module_{n}.py"


def test_hundred_thousand_file_diff_is_read_whole(repo: GitRepo) -> None:
    count = 100_000
    # One fast-import stream: a base with 100k files and a head that edits every one of them.
    lines = ["blob", "mark :1", "data 4", "old", "", "blob", "mark :2", "data 4", "new", ""]
    for mark, (ref, blob) in enumerate([("base", ":1"), ("head", ":2")], start=10):
        lines += [f"commit refs/heads/{ref}", f"mark :{mark}", "committer T <t@e> 0 +0000"]
        lines += ["data 3", ref[:3]] + (["from :10"] if ref == "head" else [])
        lines += [f"M 100644 {blob} {big_path(n)}" for n in range(count)] + [""]
    fast_import(repo, "\n".join(lines) + "\n")
    source = GitRepository(repo.root)

    full = source.changes("base", "head")
    names, files = source.changed_paths("base", "head")

    assert files == len(full) == count
    assert {c.status for c in full} == {ChangeStatus.MODIFIED}
    for paths in ({c.path for c in full}, set(names)):
        assert {big_path(0), big_path(12_345), big_path(count - 1)} <= paths
        assert len(paths) == count
    assert {c.new_lines for c in full} == {spans((1, 1))}


def test_changed_paths_agree_with_changes_and_count_a_rename_as_one_file(repo: GitRepo) -> None:
    repo.write("models/encoder.py", "".join(f"line {i}\n" for i in range(30)))
    repo.write("README.md", "# readme\n")
    repo.write("old.txt", "gone\n")
    base = repo.commit("base")
    repo.move("models/encoder.py", "attic/enc oder é.py")
    repo.write("README.md", "# readme, edited\n")
    repo.remove("old.txt")
    repo.write("new\nline.py", "x = 1\n")
    head = repo.commit("head")
    source = GitRepository(repo.root)
    paths, files = source.changed_paths(base, head)
    changes = source.changes(base, head)
    assert files == len(changes) == 4
    assert sorted(paths) == sorted(p for c in changes for p in c.paths)
    assert {"models/encoder.py", "attic/enc oder é.py", "new\nline.py"} <= set(paths)


def test_changed_paths_of_an_unknown_revision_names_it(repo: GitRepo) -> None:
    base = repo.commit("base")
    with pytest.raises(GitError, match="deadbeef"):
        GitRepository(repo.root).changed_paths(base, "deadbeef" * 5)


@pytest.mark.parametrize(
    ("out", "paths", "files"),
    [
        (b"", [], 0),
        (b"M\0a.py\0A\0b/c.py\0D\0d\0T\0link\0", ["a.py", "b/c.py", "d", "link"], 4),
        (b"M\0a\0R100\0old\0new\0M\0z\0", ["a", "old", "new", "z"], 3),  # a rename: 2 paths
        (b"R087\0o\0n\0", ["o", "n"], 1),
        (b"A\0M\0M\0A\0", ["M", "A"], 2),  # paths named like statuses
        ("M\0modèle €.py\0".encode(), ["modèle €.py"], 1),
        (b"M\0bad\xff.py\0", ["bad\udcff.py"], 1),  # not UTF-8: kept, as git's bytes
    ],
)
def test_name_status_gives_every_path_and_counts_a_rename_once(
    out: bytes, paths: list[str], files: int
) -> None:
    assert read_name_status(io.BytesIO(out)) == (paths, files)


def test_name_status_with_an_unknown_status_is_a_git_error() -> None:
    with pytest.raises(GitError, match="unexpected change status 'X'"):
        read_name_status(io.BytesIO(b"M\0a\0X\0b\0"))


def test_attributes_a_pr_adds_in_the_checkout_do_not_change_the_diff(repo: GitRepo) -> None:
    repo.write("a.py", "x = 1  # NO_REFAC\n")
    base = repo.commit("base")
    repo.write(".gitattributes", "*.py -diff\n*.md diff=evil\n")
    repo.write("a.py", "x = 2  # NO_REFAC\n")
    head = repo.commit("head: git would call a.py binary")  # checked out, as CI has it

    change = next(c for c in GitRepository(repo.root).changes(base, head) if c.path == "a.py")
    assert change.binary is False
    assert change.old_lines == (LineSpan(1, 1),) and change.new_lines == (LineSpan(1, 1),)
    assert (change.old_mode, change.new_mode) == ("100644", "100644")
