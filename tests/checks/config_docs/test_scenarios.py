"""SCENARIOS.md, config and docs (D1-D7) and the look-alikes N10-N13, on real git repositories."""

from __future__ import annotations

from gradgate.checks.base import Outcome, Severity

from tests.checks.config_docs.pr import blocking, notes, only, pull_request
from tests.gitrepo import GitRepo

README = """\
# tiny

The default recipe trains with `batch_size: 32`.

| option | default | meaning |
|---|---|---|
| `batch_size` | 32 | images per step |
| `lr` | 3e-4 | AdamW learning rate |
"""

TRAIN_YAML = "batch_size: 32\nlr: 3.0e-4\nepochs: 20\n"


def test_d1_value_changed_in_the_config_is_a_mismatch_at_both_readme_places(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": TRAIN_YAML},
        {"configs/train.yaml": TRAIN_YAML.replace("32", "64")},
    )

    assert result.outcome is Outcome.FAIL
    found = blocking(result)
    assert [(f.kind, f.file, f.line) for f in found] == [
        ("doc-value-mismatch", "README.md", 3),
        ("doc-value-mismatch", "README.md", 7),
    ]
    table = found[1]
    assert "`configs/train.yaml:1`" in table.message  # the other place
    assert "now sets it to `64` (it was `32` before this PR)" in table.message
    assert table.details_lang == "suggestion"
    assert table.details == "| `batch_size` | 64 | images per step |"
    assert found[0].details == "The default recipe trains with `batch_size: 64`."


def test_d1_a_doc_edit_that_disagrees_with_the_config_blocks_too(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": TRAIN_YAML},
        {"README.md": README.replace("| 3e-4 |", "| 1e-3 |")},
    )

    found = only(blocking(result), "doc-value-mismatch")
    assert (found.file, found.line) == ("README.md", 8)
    assert "`configs/train.yaml:2` (config) sets it to `3.0e-4`" in found.message
    assert found.details == "| `lr` | 3.0e-4 | AdamW learning rate |"


def test_d2_renamed_config_key_leaves_the_documented_key_gone(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": TRAIN_YAML},
        {"configs/train.yaml": TRAIN_YAML.replace("lr:", "learning_rate:")},
    )

    gone = only(blocking(result), "doc-key-gone")
    assert (gone.file, gone.line) == ("README.md", 8)
    assert "`lr`" in gone.message and "`configs/train.yaml:2` had it" in gone.message
    assert "renamed to `learning_rate`" in gone.message
    assert gone.details == "| `learning_rate` | 3e-4 | AdamW learning rate |"
    # The new name itself is a new, undocumented key: a note.
    assert [f.kind for f in notes(result)] == ["config-key-undocumented"]


def test_d3_new_config_key_missing_from_the_options_table_is_a_note(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": TRAIN_YAML},
        {"configs/train.yaml": TRAIN_YAML + "warmup_steps: 1000\n"},
    )

    assert result.outcome is Outcome.PASS
    note = only(notes(result), "config-key-undocumented")
    assert (note.file, note.line) == ("configs/train.yaml", 4)
    assert "`warmup_steps` (1000)" in note.message


def test_d3_a_new_key_in_a_file_the_docs_never_document_says_nothing(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README, "configs/train.yaml": TRAIN_YAML, "configs/eval.yaml": "k: 1\n"},
        {"configs/eval.yaml": "k: 1\nbeam: 4\n"},
    )

    assert result.findings == ()


TRAIN_PY = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--dropout", type=float, default={dropout})
parser.add_argument("--seed", type=int, default=0)
"""

OPTIONS = """\
# tiny

| flag | default |
|---|---|
| `--dropout` | 0.1 |
"""


def test_d4_argparse_default_changed_under_the_readme_table(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": OPTIONS, "train.py": TRAIN_PY.format(dropout="0.1")},
        {"train.py": TRAIN_PY.format(dropout="0.0")},
    )

    found = only(blocking(result), "doc-value-mismatch")
    assert (found.file, found.line) == ("README.md", 5)
    assert "`train.py:4` (argparse default) now sets it to `0.0`" in found.message
    assert found.details == "| `--dropout` | 0.0 |"


def test_d4_dataclass_field_default_is_a_source_of_truth(repo: GitRepo) -> None:
    model = (
        "from dataclasses import dataclass\n\n@dataclass\nclass GPTConfig:\n"
        "    dropout: float = {}\n"
    )
    result = pull_request(
        repo,
        {"README.md": OPTIONS, "gpt/model.py": model.format("0.1")},
        {"gpt/model.py": model.format("0.2")},
    )

    found = only(blocking(result), "doc-value-mismatch")
    assert "`gpt/model.py:5` (dataclass `GPTConfig`) now sets it to `0.2`" in found.message


BLOCK_README = """\
# tiny

```yaml
optimizer:
  lr: 1e-3
  betas: [0.9, 0.95]
```
"""


def test_d5_fenced_yaml_block_disagrees_with_the_config(repo: GitRepo) -> None:
    config = "optimizer:\n  lr: 1e-3\n  betas: [0.9, 0.95]\n"
    result = pull_request(
        repo,
        {"README.md": BLOCK_README, "configs/train.yaml": config},
        {"configs/train.yaml": config.replace("1e-3", "3e-4")},
    )

    found = only(blocking(result), "doc-value-mismatch")
    assert (found.file, found.line) == ("README.md", 5)
    assert "(yaml block) says `optimizer.lr` is `1e-3`" in found.message
    assert found.details == "  lr: 3e-4"


def test_d5_equal_numbers_written_differently_agree(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": BLOCK_README, "configs/train.yaml": "optimizer:\n  lr: 0.01\n"},
        {"configs/train.yaml": "optimizer:\n  lr: 0.001\n  betas: [0.9, 0.95]\n"},
    )

    assert result.findings == ()


PKG_MODEL = "class GPT:\n    pass\n\n\nclass GPTConfig:\n    pass\n"
IMPORT_README = """\
# gpt

```python
from pkg.model import GPT, GPTConfig
import torch
```
"""


def test_d6_readme_import_no_longer_resolves(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": IMPORT_README, "pkg/__init__.py": "", "pkg/model.py": PKG_MODEL},
        {"pkg/model.py": "class GPT:\n    pass\n"},
    )

    found = only(blocking(result), "doc-import-broken")
    assert (found.file, found.line) == ("README.md", 4)
    assert "`pkg/model.py` does not define `GPTConfig`" in found.message


def test_d6_a_name_moved_behind_a_reexport_still_resolves(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": IMPORT_README, "pkg/__init__.py": "", "pkg/model.py": PKG_MODEL},
        {
            "pkg/model.py": "from pkg.config import GPTConfig\n\n\nclass GPT:\n    pass\n",
            "pkg/config.py": "class GPTConfig:\n    pass\n",
        },
    )

    assert result.findings == ()


def test_d6_importing_a_submodule_from_a_package_resolves(repo: GitRepo) -> None:
    readme = "# gpt\n\n```python\nfrom pkg import model\nfrom pkg.model import GPT\n```\n"
    result = pull_request(
        repo,
        {"README.md": readme, "pkg/__init__.py": "", "pkg/model.py": PKG_MODEL},
        {"pkg/model.py": PKG_MODEL + "\n\nclass Extra:\n    pass\n"},
    )

    assert result.findings == ()


SHELL_README = """\
# tiny

```bash
python train.py configs/small.yaml
```
"""


def test_d7_readme_command_names_a_moved_config(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": SHELL_README, "train.py": "", "configs/small.yaml": "batch_size: 12\n"},
        {},
        moves=(("configs/small.yaml", "configs/tiny/small.yaml"),),
    )

    found = only(blocking(result), "doc-path-missing")
    assert (found.file, found.line) == ("README.md", 4)
    assert "this PR moved it to `configs/tiny/small.yaml`" in found.message
    assert found.details == "python train.py configs/tiny/small.yaml"


def test_d7_deleted_script_is_reported(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": SHELL_README, "train.py": "", "configs/small.yaml": "batch_size: 12\n"},
        {"train.py": None},
    )

    found = only(blocking(result), "doc-path-missing")
    assert "the script `train.py`, but it does not exist at head" in found.message


def test_d7_an_output_file_a_command_writes_is_not_a_missing_file(repo: GitRepo) -> None:
    readme = "# t\n\n```bash\npython train.py --out results.json --log=logs/run.yaml\n```\n"
    result = pull_request(
        repo,
        {"README.md": readme, "train.py": ""},
        {"README.md": readme + "\nMore.\n"},
    )

    assert result.findings == ()


def test_n10_command_line_overrides_are_not_claims(repo: GitRepo) -> None:
    readme = (
        "# tiny\n\n```bash\npython train.py --batch_size=12 configs/train.yaml\n```\n\n"
        "On a laptop run `python train.py --batch_size=12`, or `batch_size=12` if you must.\n"
    )
    result = pull_request(
        repo,
        {"README.md": readme, "train.py": "", "configs/train.yaml": "batch_size: 32\n"},
        {"configs/train.yaml": "batch_size: 64\n"},
    )

    assert result.findings == ()
    assert result.outcome is Outcome.PASS


def test_n11_other_setups_versions_and_dates_are_not_claims(repo: GitRepo) -> None:
    readme = """\
# tiny

For ImageNet we used batch 256, and for the paper we used `batch_size: 256`.
Requires `torch>=1.10` (tested with `version: 1.10`), released `date: 2024-05-01`.

| release | value |
|---|---|
| version | 1.10 |
"""
    config = "batch_size: 32\nversion: 1.1\ndate: 2023-01-01\n"
    result = pull_request(
        repo,
        {"README.md": readme, "configs/train.yaml": config},
        {"configs/train.yaml": config.replace("32", "64")},
    )

    assert result.findings == ()


def test_n13_drift_already_at_base_and_untouched_is_a_note(repo: GitRepo) -> None:
    drifted = README.replace("| 32 |", "| 16 |")
    result = pull_request(
        repo,
        {"README.md": drifted, "configs/train.yaml": TRAIN_YAML, "train.py": ""},
        # the PR changes the README elsewhere: a drift in a doc the PR left alone is counted in
        # the summary only (issue 36, test_noise)
        {"train.py": "print('hello')\n", "README.md": drifted + "\nSee also the wiki.\n"},
    )

    assert result.outcome is Outcome.PASS
    note = only(notes(result), "doc-value-mismatch")
    assert note.severity is Severity.NOTE
    assert (note.file, note.line) == ("README.md", 7)
    assert "already so before this PR" in note.message
    assert note.details == "| `batch_size` | 32 | images per step |"
