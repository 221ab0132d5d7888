"""A doc or config the PR made unreadable blocks; "already so before this PR" only when true.

Issue 18: one non-UTF-8 byte added to README.md (or padding it past 2 MB) turned a real
docs/config disagreement into a pass, with a note claiming the problem predated the PR.
"""

from __future__ import annotations

from gradgate.checks.base import Outcome

from tests.checks.config_docs.pr import blocking, notes, only, pull_request
from tests.gitrepo import GitRepo

README = "# tiny\n\n| option | default |\n|---|---|\n| `batch_size` | 32 |\n"
CONFIG = {"configs/train.yaml": "batch_size: 32\n"}
CHANGED = {"configs/train.yaml": "batch_size: 64\n"}


def test_a_non_utf8_byte_added_to_the_readme_blocks_as_made_unreadable(repo: GitRepo) -> None:
    broken = (README + "caf\xe9\n").encode("latin-1")
    result = pull_request(repo, {"README.md": README, **CONFIG}, {"README.md": broken, **CHANGED})

    assert result.outcome is Outcome.FAIL
    found = only(blocking(result), "file-unreadable")
    assert found.file == "README.md" and found.line == 6
    assert found.message.startswith("this PR made `README.md` unreadable: it is not UTF-8 text")
    assert "already so" not in found.message


def test_a_readme_padded_past_the_size_limit_blocks_as_made_unreadable(repo: GitRepo) -> None:
    padded = README + ("padding " * 16 + "\n") * 20_000  # ~2.6 MB
    result = pull_request(repo, {"README.md": README, **CONFIG}, {"README.md": padded, **CHANGED})

    assert result.outcome is Outcome.FAIL
    found = only(blocking(result), "file-skipped")
    assert found.message.startswith("this PR made `README.md` unreadable: it is 2.")
    assert "over the 2 MB limit" in found.message and "already so" not in found.message


def test_a_config_padded_past_the_size_limit_blocks_as_made_unreadable(repo: GitRepo) -> None:
    padded = "batch_size: 64\n" + "# pad\n" * 400_000  # ~2.4 MB
    result = pull_request(repo, {"README.md": README, **CONFIG}, {"configs/train.yaml": padded})

    found = only(blocking(result), "file-skipped")
    assert found.file == "configs/train.yaml"
    assert found.message.startswith("this PR made `configs/train.yaml` unreadable:")


def test_a_doc_unreadable_at_base_and_head_is_a_note_that_says_so(repo: GitRepo) -> None:
    broken = (README + "caf\xe9\n").encode("latin-1")
    result = pull_request(
        repo, {"README.md": broken, **CONFIG, "train.py": ""}, {"README.md": broken + b"more\n"}
    )

    assert result.outcome is Outcome.PASS
    note = only(notes(result), "file-unreadable")
    assert "This was already so before this PR." in note.message


def test_a_doc_binary_at_base_and_non_utf8_at_head_was_already_unreadable(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "docs/a.md": b"\x89PNG\r\n\x00\x00", **CONFIG},
        {"docs/a.md": "caf\xe9\n".encode("latin-1")},
    )

    assert result.outcome is Outcome.PASS
    note = only(notes(result), "file-unreadable")
    assert "This was already so before this PR." in note.message


def test_a_new_unreadable_doc_is_a_note_that_does_not_claim_it_was_there_before(
    repo: GitRepo,
) -> None:
    result = pull_request(
        repo,
        {"README.md": README, **CONFIG},
        {"docs/diagram.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"},
    )

    assert result.outcome is Outcome.PASS
    note = only(notes(result), "file-skipped")
    assert "already so" not in note.message


def test_a_doc_the_pr_left_with_an_unclosed_fence_does_not_claim_it_was_there_before(
    repo: GitRepo,
) -> None:
    result = pull_request(
        repo, {"README.md": README, **CONFIG}, {"README.md": README + "\n```bash\nls\n"}
    )

    note = only(notes(result), "doc-fence-unclosed")
    assert "already so" not in note.message
