"""Claims in sentences (issue 19): D8, a training config stated in prose, and the look-alikes."""

from __future__ import annotations

from gradgate.checks.base import Outcome
from gradgate.checks.config_docs.claims.markdown import read_doc
from gradgate.checks.config_docs.model import ValueClaim

from tests.checks.config_docs.pr import blocking, notes, only, pull_request
from tests.gitrepo import GitRepo


def sentence_values(text: str) -> list[tuple[int, str, str]]:
    claims, _ = read_doc("README.md", text)
    return [
        (c.line, ".".join(c.key), c.value.text)
        for c in claims
        if isinstance(c, ValueClaim) and c.form == "sentence"
    ]


def test_values_tied_to_a_key_by_code_span_identifier_or_name() -> None:
    text = (
        "The model has `n_layer` of 12 and n_head=12.\n\n"
        "- `--lr`: 3e-4\n"
        "- n_embd 768\n\n"
        "We train with a batch size of 32 and a learning rate of 6e-4.\n\n"
        "The default recipe is trained for 600k iterations, with a decay of 0.8.\n"
    )
    assert sentence_values(text) == [
        (1, "n_layer", "12"),
        (1, "n_head", "12"),
        (3, "lr", "3e-4"),
        (4, "n_embd", "768"),
        (6, "batch_size", "32"),
        (6, "learning_rate", "6e-4"),
        (8, "max_iters", "600k"),
        (8, "decay", "0.8"),
    ]


def test_look_alikes_in_sentences_claim_nothing() -> None:
    text = (
        "Step 2: install it. Top 5 accuracy is 76.1.\n\n"
        "The total batch size is ~0.5M tokens, roughly 2 GB per GPU.\n\n"
        "Use a batch size of 32-64, or a batch size of 12 x 40.\n\n"
        "For ImageNet we used a batch size of 256.\n\n"
        "On a laptop, run with n_layer 4 instead.\n\n"
        "Requires Python 3.10 and PyTorch 2.1, released 2024-05-01; GPT-2 (124M) took 4 days.\n\n"
        "We warm up for 2000 iterations, and evaluate every 500 iterations.\n\n"
        "On CPU, decrease the number of iterations to 2000. The best validation loss is 1.47.\n"
    )
    assert sentence_values(text) == []


PARAMETERS = '''\
def build(dim={dim}, depth=6):
    """Build the model."""
    return dim, depth
'''
PROSE_README = """\
# vq

The codebook width `dim` defaults to `512`; `depth` is the number of layers.
"""


def test_d8_prose_default_changed_in_a_function_signature(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": PROSE_README, "vq/__init__.py": PARAMETERS.format(dim=512)},
        {"vq/__init__.py": PARAMETERS.format(dim=256)},
    )

    found = only(blocking(result), "doc-value-mismatch")
    assert (found.file, found.line) == ("README.md", 3)
    assert "`vq/__init__.py:1` (parameter default of `build`) now sets it to `256`" in (
        found.message
    )
    assert found.details == (
        "The codebook width `dim` defaults to `256`; `depth` is the number of layers."
    )


def test_a_config_key_outranks_a_parameter_of_the_same_name(repo: GitRepo) -> None:
    readme = "# t\n\nThe `lr` defaults to `3e-4`.\n"
    code = "def configure_optimizers(lr=1e-3):\n    return lr\n"
    result = pull_request(
        repo,
        {"README.md": readme, "configs/train.yaml": "lr: 3e-4\n", "train.py": code},
        {"train.py": code.replace("1e-3", "1e-2")},
    )

    assert result.findings == ()


def test_a_new_parameter_is_no_undocumented_setting(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": PROSE_README, "vq/__init__.py": PARAMETERS.format(dim=512)},
        {"vq/__init__.py": PARAMETERS.format(dim=512) + "\n\ndef extra(eps=1e-5):\n    pass\n"},
    )

    assert result.findings == ()


TRAIN_CONFIG = """\
# train a GPT-2 (124M) on OpenWebText
batch_size = 12
block_size = 1024
learning_rate = 6e-4
max_iters = {iters}
n_layer = 12
"""
CONFIG_README = """\
# gpt

The default config trains with a batch size of 12 and a learning rate of 6e-4, on a context of
`block_size` 1024, for 600k iterations. The model is n_layer 12.
"""


def test_training_config_values_stated_in_sentences_are_checked(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": CONFIG_README, "config/train_gpt2.py": TRAIN_CONFIG.format(iters=600000)},
        {"config/train_gpt2.py": TRAIN_CONFIG.format(iters=300000)},
    )

    assert result.metrics["value_claims"] == 5
    found = only(blocking(result), "doc-value-mismatch")
    assert (found.file, found.line) == ("README.md", 4)
    assert "says `max_iters` is `600k`" in found.message
    assert "`config/train_gpt2.py:5` (config module) now sets it to `300000`" in found.message


def test_a_sentence_drift_already_at_base_is_a_note(repo: GitRepo) -> None:
    config = TRAIN_CONFIG.format(iters=600000).replace("batch_size = 12", "batch_size = 16")
    result = pull_request(
        repo,
        {"README.md": CONFIG_README, "config/train_gpt2.py": config},
        {"config/train_gpt2.py": config + "# touched\n", "README.md": CONFIG_README + "\nMore.\n"},
    )

    assert result.outcome is Outcome.PASS
    note = only(notes(result), "doc-value-mismatch")
    assert "says `batch_size` is `12`" in note.message


def test_a_phrase_that_names_no_setting_claims_nothing(repo: GitRepo) -> None:
    readme = "# t\n\nIt has a total batch size of 480 and a hidden size of 64.\n"
    config = "batch_size = 12\nn_embd = 64\n"
    result = pull_request(
        repo,
        {"README.md": readme, "config/train.py": config},
        {"config/train.py": config.replace("12", "16")},
    )

    assert result.findings == ()
