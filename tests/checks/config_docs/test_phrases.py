"""Which setting a phrase in a README names (claims/phrases.py, pure): the words that end a
phrase, the measured quantities that are never settings, the synonyms and the run-length
units, each written out here, so that a word dropped from a list is a claim tied to the wrong
setting (or to none) and fails a test."""

from __future__ import annotations

import pytest
from gradgate.checks.config_docs.claims.phrases import count_keys, phrase_keys

# Each ends a phrase read back from the value: "the default batch size is 64" names
# `batch_size`, never `default_batch_size`.
STOPS = (
    "a", "an", "the", "our", "its", "their", "this", "that", "these", "those", "default",
    "defaults", "initial", "with", "and", "or", "but", "uses", "use", "using", "used", "trains",
    "train", "training", "trained", "run", "runs", "by", "to", "of", "in", "on", "at", "for",
    "from", "is", "are", "was", "were", "be", "been", "has", "have", "had", "set", "sets", "we",
    "it", "which", "while", "as", "per", "each", "every", "all", "also", "only", "than", "then",
    "there", "here", "when", "where", "if",
)  # fmt: skip
# What a run measures: "the validation loss is 1.47" claims no setting.
MEASURED = (
    "accuracy", "acc", "loss", "perplexity", "ppl", "bleu", "score", "error", "f1", "auc", "iou",
    "fid", "wer", "cer", "throughput", "mfu", "speed", "time", "memory", "latency", "params",
)  # fmt: skip
ITERATIONS = (
    "max_iters", "max_iter", "max_iterations", "num_iters", "num_iterations", "n_iters", "iters",
    "iterations", "max_steps", "num_steps", "total_steps", "train_steps", "training_steps",
    "num_train_steps", "steps",
)  # fmt: skip
EPOCHS = ("max_epochs", "num_epochs", "n_epochs", "epochs", "num_train_epochs", "train_epochs")


@pytest.mark.parametrize("word", STOPS)
def test_a_stop_word_ends_the_phrase(word: str) -> None:
    assert phrase_keys(f"dropout {word} batch size") == ((("batch_size",), ("bs",)), "batch size")
    # whatever its case: "Default batch size" at a sentence's start
    assert phrase_keys(f"{word.capitalize()} dropout") == ((("dropout",),), "dropout")


@pytest.mark.parametrize("word", MEASURED)
def test_a_measured_quantity_is_never_a_setting(word: str) -> None:
    assert phrase_keys(f"validation {word}") == ((), "")
    assert phrase_keys(f"validation {word.upper()}") == ((), "")


@pytest.mark.parametrize(
    ("words", "keys", "text"),
    [
        ("learning rate", [("learning_rate",), ("lr",)], "learning rate"),
        ("LR", [("lr",), ("learning_rate",)], "LR"),
        ("weight decay", [("weight_decay",), ("wd",)], "weight decay"),
        ("warmup steps", [("warmup_steps",), ("warmup_iters",), ("warmup",)], "warmup steps"),
        ("warmup iters", [("warmup_iters",), ("warmup_steps",), ("warmup",)], "warmup iters"),
        # three words at most, hyphens as underscores, the last word's case as written
        ("our peak max learning-rate", [("peak_max_learning_rate",)], "peak max learning-rate"),
        ("uses total batch size", [("total_batch_size",)], "total batch size"),
        ("with", [], ""),
        ("", [], ""),
        # versions and dates are never settings: "Python 3.10", "release date"
        ("requires Python", [], ""),
        ("torch version", [], ""),
        ("python dropout", [], ""),
    ],
)
def test_the_settings_a_phrase_names(words: str, keys: list[tuple[str]], text: str) -> None:
    assert phrase_keys(words) == (tuple(keys), text)


def test_a_phrase_keeps_at_most_three_words() -> None:
    assert phrase_keys("peak max base learning rate") == (
        (("base_learning_rate",),),
        "base learning rate",
    )


@pytest.mark.parametrize(
    ("unit", "keys"),
    [("iterations", ITERATIONS), ("Iteration", ITERATIONS), ("iters", ITERATIONS),
     ("STEPS", ITERATIONS), ("epochs", EPOCHS), ("tokens", ())],
)  # fmt: skip
def test_the_settings_a_run_length_names(unit: str, keys: tuple[str, ...]) -> None:
    assert count_keys(unit) == tuple((k,) for k in keys)
