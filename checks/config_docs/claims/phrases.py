"""The settings a phrase in prose may name (pure): "batch size" is `batch_size`, "learning rate"
is `learning_rate` or `lr`, and "600k iterations" is `max_iters`, `max_steps` and their kin.

A phrase is the run of words right before a value, without articles and "default"; every word
of it must belong to the name ("total batch size" is `total_batch_size`, never `batch_size`), so
a claim is tied to a setting only when the docs name that setting.
"""

from __future__ import annotations

from gradgate.checks.config_docs.claims.words import is_setting_key
from gradgate.checks.config_docs.model import Key

# Words that end a phrase when reading back from the value: the phrase is what follows them.
_STOP = frozenset(
    (
        "a", "an", "the", "our", "its", "their", "this", "that", "these", "those", "default",
        "defaults", "initial", "with", "and", "or", "but", "uses", "use", "using", "used", "trains",
        "train", "training", "trained", "run", "runs", "by", "to", "of", "in", "on", "at", "for",
        "from", "is", "are", "was", "were", "be", "been", "has", "have", "had", "set", "sets", "we",
        "it", "which", "while", "as", "per", "each", "every", "all", "also", "only", "than", "then",
        "there", "here", "when", "where", "if",
    )
)  # fmt: skip
# What a run measures, never what it is set to: "the validation loss is 1.47".
_MEASURED = frozenset(
    ("accuracy", "acc", "loss", "perplexity", "ppl", "bleu", "score", "error", "f1", "auc", "iou",
     "fid", "wer", "cer", "throughput", "mfu", "speed", "time", "memory", "latency", "params")
)  # fmt: skip
# Settings better known by another name: the phrase's own name first.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "learning_rate": ("lr",),
    "lr": ("learning_rate",),
    "weight_decay": ("wd",),
    "batch_size": ("bs",),
    "warmup_steps": ("warmup_iters", "warmup"),
    "warmup_iters": ("warmup_steps", "warmup"),
}
_ITERATIONS = (
    "max_iters", "max_iter", "max_iterations", "num_iters", "num_iterations", "n_iters",
    "iters", "iterations", "max_steps", "num_steps", "total_steps", "train_steps",
    "training_steps", "num_train_steps", "steps",
)  # fmt: skip
_EPOCHS = ("max_epochs", "num_epochs", "n_epochs", "epochs", "num_train_epochs", "train_epochs")
_UNITS: dict[str, tuple[str, ...]] = {
    "iterations": _ITERATIONS,
    "iteration": _ITERATIONS,
    "iters": _ITERATIONS,
    "steps": _ITERATIONS,
    "epochs": _EPOCHS,
}


def phrase_keys(words: str) -> tuple[tuple[Key, ...], str]:
    """The settings the phrase ending ``words`` may name, and the phrase as written."""
    kept: list[str] = []
    for word in reversed(words.split()):
        if word.lower() in _STOP or len(kept) == 3:
            break
        kept.append(word)
    if not kept:
        return (), ""
    kept.reverse()
    if not all(is_setting_key((w.lower(),)) for w in kept) or kept[-1].lower() in _MEASURED:
        return (), ""  # "Python 3.10", "top 5 accuracy is 76.1": versions and results
    text = " ".join(kept)
    name = "_".join(w.lower().replace("-", "_") for w in kept)
    names = tuple((n,) for n in (name, *_SYNONYMS.get(name, ())))
    return (names if is_setting_key(names[0]) else ()), text


def count_keys(unit: str) -> tuple[Key, ...]:
    """The settings a run length in ``unit`` ("iterations", "epochs") may name."""
    return tuple((n,) for n in _UNITS.get(unit.lower(), ()))
