"""Issue 36: config-docs notes a reviewer acts on. Prose that tells the reader what to set is no
claim about a default, and disagreements that were already there are one collapsed note.

The sentences are those of a large transformer library's README that were read as claims on
97 of 100 replayed commits.
"""

from __future__ import annotations

from gradgate.checks.base import Outcome, Severity

from tests.checks.config_docs.pr import blocking, pull_request
from tests.gitrepo import GitRepo

CONFIG = (
    "dim: 512\nshift_tokens: 0\nl2norm_embed: false\nscale_residual: false\n"
    "layers_execute_order: null\nheads: 8\n"
)
INSTRUCTING = """\
# x-transformers

To use token shifting, simply set `shift_tokens = 1` and train as usual.

Embedding normalisation works as long as `l2norm_embed` is set to `True`.

To scale the residual, you simply have to set `scale_residual = True`.

The `layers_execute_order` is 0-indexed.

The model width `dim` must be `1024` for the large preset.

Set `heads: 16` for the wide model.

It is recommended you have either `l2norm_embed` or `shift_tokens` set to `True`, not both.
"""


def test_prose_that_instructs_is_no_claim_about_a_default(repo: GitRepo) -> None:
    result = pull_request(repo, {"configs/model.yaml": CONFIG}, {"README.md": INSTRUCTING})
    assert result.findings == (), [f.message for f in result.findings]


def test_a_sentence_that_states_the_default_is_still_a_claim(repo: GitRepo) -> None:
    readme = INSTRUCTING + "\nThe model width `dim` defaults to `1024`; `heads` is set to `16`.\n"
    result = pull_request(repo, {"configs/model.yaml": CONFIG}, {"README.md": readme})
    found = blocking(result)
    assert sorted(f.line for f in found) == [17, 17], [f.message for f in found]
    assert all(f.kind == "doc-value-mismatch" for f in found)


README_DRIFTED = """\
# tiny

| option | default |
|---|---|
| `dim` | 256 |
| `heads` | 4 |
| `depth` | 6 |
"""
DRIFTED_CONFIG = "dim: 512\nheads: 8\ndepth: 12\nlr: 3.0e-4\n"


def test_disagreements_already_there_in_docs_the_pr_left_alone_are_only_counted(
    repo: GitRepo,
) -> None:
    # Issue 36: the same notes on every PR, none of which it caused, are learned to skip.
    result = pull_request(
        repo,
        {"README.md": README_DRIFTED, "configs/model.yaml": DRIFTED_CONFIG},
        {"configs/model.yaml": DRIFTED_CONFIG.replace("3.0e-4", "1.0e-3")},
    )
    assert result.findings == ()
    assert result.outcome is Outcome.PASS
    assert result.summary.endswith("; 3 older, in docs this PR did not change)")


def test_disagreements_already_there_are_one_collapsed_note(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README_DRIFTED, "configs/model.yaml": DRIFTED_CONFIG},
        {"README.md": README_DRIFTED + "\nSee the configs for more.\n"},
    )
    (note,) = result.findings
    assert (note.kind, note.severity) == ("doc-disagreements-before", Severity.NOTE)
    assert note.message.startswith("3 disagreements between the docs and configs or code (in ")
    assert note.details is not None and note.details_lang == "text"
    assert [line.split(":")[:2] for line in note.details.splitlines()] == [
        ["README.md", "5"],
        ["README.md", "6"],
        ["README.md", "7"],
    ]
    assert "already so before this PR" in note.details


def test_an_old_disagreement_on_a_line_the_pr_changed_stays_its_own_note(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": README_DRIFTED, "configs/model.yaml": DRIFTED_CONFIG},
        {"README.md": README_DRIFTED.replace("| `heads` | 4 |", "| `heads` |  4 |")},
    )
    kinds = sorted((f.kind, f.line) for f in result.findings)
    assert kinds == [("doc-disagreements-before", None), ("doc-value-mismatch", 6)]
