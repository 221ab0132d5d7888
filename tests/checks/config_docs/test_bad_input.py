"""Bad input gets a specific finding on the file it concerns; the other files are still checked."""

from __future__ import annotations

from gradgate.checks.base import Outcome, Severity

from tests.checks.config_docs.pr import blocking, notes, only, pull_request
from tests.gitrepo import GitRepo

README = "# tiny\n\n| option | default |\n|---|---|\n| `batch_size` | 32 |\n| `lr` | 3e-4 |\n"


def test_yaml_that_does_not_parse_is_a_finding_and_other_configs_are_still_checked(
    repo: GitRepo,
) -> None:
    result = pull_request(
        repo,
        {
            "README.md": README,
            "configs/data.yaml": "batch_size: 32\n",
            "configs/optim.yaml": "lr: 3e-4\n",
        },
        {"configs/data.yaml": "batch_size: [32\nworkers: 4\n", "configs/optim.yaml": "lr: 1e-3\n"},
    )

    assert result.outcome is Outcome.FAIL
    found = blocking(result)
    assert [(f.kind, f.file) for f in found] == [
        ("doc-value-mismatch", "README.md"),
        ("config-unparsed", "configs/data.yaml"),
    ]
    assert found[0].line == 6  # lr, from the config that still parses
    assert found[1].line == 2
    assert found[1].message.startswith("this PR made `configs/data.yaml` unreadable: it is not")
    assert "is not valid YAML" in found[1].message


def test_yaml_broken_before_the_pr_is_a_note(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/bad.yaml": "a: [1\n", "train.py": ""},
        {"train.py": "x = 1\n", "configs/bad.yaml": "a: [1\n\n"},  # touched, still broken
    )

    assert result.outcome is Outcome.PASS
    assert only(notes(result), "config-unparsed").file == "configs/bad.yaml"


def test_a_huge_file_in_the_docs_glob_is_skipped_with_a_note(repo: GitRepo) -> None:
    huge = "# big\n\n" + ("`batch_size: 99` " * 20 + "\n") * 8000  # ~2.6 MB
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": "batch_size: 32\nlr: 3e-4\n"},
        {"docs/huge.md": huge, "configs/train.yaml": "batch_size: 64\nlr: 3e-4\n"},
    )

    assert [f.file for f in blocking(result)] == ["README.md"]
    note = only(notes(result), "file-skipped")
    assert note.file == "docs/huge.md" and "over the 2 MB limit" in note.message


def test_a_binary_file_in_the_docs_glob_is_skipped_with_a_note(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": "batch_size: 32\n"},
        {"docs/diagram.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"},
    )

    assert result.outcome is Outcome.PASS
    note = only(notes(result), "file-skipped")
    assert note.file == "docs/diagram.md" and "binary" in note.message


def test_markdown_with_an_unclosed_fence_is_a_note_and_claims_before_it_count(
    repo: GitRepo,
) -> None:
    readme = README + "\n```bash\npython train.py\n"
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": "batch_size: 32\n", "train.py": ""},
        {"README.md": readme, "configs/train.yaml": "batch_size: 48\n"},
    )

    assert only(blocking(result), "doc-value-mismatch").line == 5
    note = only(notes(result), "doc-fence-unclosed")
    assert (note.file, note.line) == ("README.md", 8)
    assert "never closes" in note.message


def test_colliding_keys_in_a_config_block_when_the_pr_introduces_them(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": "batch_size: 32\nlr: 3e-4\n"},
        {"configs/train.yaml": "batch_size: 32\nlr: 3e-4\nbatch_size: 64\n"},
    )

    kinds = [(f.kind, f.file, f.line) for f in blocking(result)]
    # YAML keeps the last value, so the README now disagrees too.
    assert kinds == [
        ("doc-value-mismatch", "README.md", 5),
        ("config-key-collision", "configs/train.yaml", 3),
    ]
    collision = blocking(result)[1]
    assert "`batch_size` is set twice (line 1 and line 3)" in collision.message


def test_dotted_and_nested_keys_that_collide(repo: GitRepo) -> None:
    config = "optimizer:\n  lr: 3e-4\n"
    result = pull_request(
        repo,
        {"configs/train.yaml": config, "README.md": "# t\n"},
        {"configs/train.yaml": config + "optimizer.lr: 1e-3\n"},
    )

    found = only(blocking(result), "config-key-collision")
    assert found.line == 3 and "`optimizer.lr` is set twice" in found.message


def test_duplicate_keys_in_json_and_toml(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": "# t\n", "configs/a.json": '{"lr": 1}\n', "configs/b.toml": "lr = 1\n"},
        {"configs/a.json": '{"lr": 1,\n "lr": 2}\n', "configs/b.toml": "lr = 1\nlr = 2\n"},
    )

    assert [(f.kind, f.file, f.line) for f in blocking(result)] == [
        ("config-key-collision", "configs/a.json", 2),
        ("config-key-collision", "configs/b.toml", 2),
    ]


def test_non_utf8_text(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": "batch_size: 32\n"},
        {
            "configs/train.yaml": "batch_size: 32\nname: caf\xe9\n".encode("latin-1"),
            "docs/notes.md": "# caf\xe9\n".encode("latin-1"),
        },
    )

    config = only(blocking(result), "file-unreadable")
    assert config.file == "configs/train.yaml" and config.line == 2
    assert "not UTF-8 text (byte 24, line 2)" in config.message
    doc = only(notes(result), "file-unreadable")
    assert doc.file == "docs/notes.md"
    assert doc.severity is Severity.NOTE
    assert "already so" not in doc.message  # it is new at head: nothing was so before
