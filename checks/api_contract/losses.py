"""Calls of asymmetric PyTorch losses whose arguments look swapped (pure).

`F.cross_entropy(logits, targets)` and `F.cross_entropy(targets, logits)` both run for many
shapes and dtypes, and the second computes nonsense. A call looks swapped when the argument
names say so (`targets` where the prediction goes and `logits` where the target goes), or when
the same call stood at base with the two exchanged. Symmetric losses (`mse_loss`, `l1_loss`,
`smooth_l1_loss`, `huber_loss`) are not listed: their order does not matter.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from gradgate.checks.api_contract.calls import Call, How


@dataclass(frozen=True, slots=True)
class Slot:
    name: str  # the parameter
    group: str  # exchanging two arguments of one group changes nothing (cosine's inputs)
    role: str | None  # what an argument's name says when it belongs here


_INPUT = Slot("input", "input", "prediction")
_TARGET = Slot("target", "target", "target")
_PAIR = (_INPUT, _TARGET)
_TRIPLET = (
    Slot("anchor", "anchor", None),
    Slot("positive", "positive", "positive"),
    Slot("negative", "negative", "negative"),
)
# torch.nn.functional's asymmetric losses and their leading parameters.
FUNCTIONAL: dict[str, tuple[Slot, ...]] = {
    "cross_entropy": _PAIR,
    "nll_loss": _PAIR,
    "binary_cross_entropy": _PAIR,
    "binary_cross_entropy_with_logits": _PAIR,
    "kl_div": _PAIR,
    "poisson_nll_loss": _PAIR,
    "gaussian_nll_loss": (*_PAIR, Slot("var", "var", None)),
    "multi_margin_loss": _PAIR,
    "multilabel_margin_loss": _PAIR,
    "multilabel_soft_margin_loss": _PAIR,
    "soft_margin_loss": _PAIR,
    "hinge_embedding_loss": _PAIR,
    "margin_ranking_loss": (
        Slot("input1", "input1", "prediction"),
        Slot("input2", "input2", "prediction"),
        _TARGET,
    ),
    "cosine_embedding_loss": (
        Slot("input1", "input", "prediction"),
        Slot("input2", "input", "prediction"),
        _TARGET,
    ),
    "triplet_margin_loss": _TRIPLET,
    "triplet_margin_with_distance_loss": _TRIPLET,
    "ctc_loss": (
        Slot("log_probs", "input", "prediction"),
        Slot("targets", "target", "target"),
        Slot("input_lengths", "input_lengths", None),
        Slot("target_lengths", "target_lengths", None),
    ),
}
# torch.nn's loss modules: their forward takes what the functional form does.
CLASSES = {
    "CrossEntropyLoss": "cross_entropy",
    "NLLLoss": "nll_loss",
    "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
    "KLDivLoss": "kl_div",
    "PoissonNLLLoss": "poisson_nll_loss",
    "GaussianNLLLoss": "gaussian_nll_loss",
    "MultiMarginLoss": "multi_margin_loss",
    "MultiLabelMarginLoss": "multilabel_margin_loss",
    "MultiLabelSoftMarginLoss": "multilabel_soft_margin_loss",
    "SoftMarginLoss": "soft_margin_loss",
    "HingeEmbeddingLoss": "hinge_embedding_loss",
    "MarginRankingLoss": "margin_ranking_loss",
    "CosineEmbeddingLoss": "cosine_embedding_loss",
    "TripletMarginLoss": "triplet_margin_loss",
    "TripletMarginWithDistanceLoss": "triplet_margin_with_distance_loss",
    "CTCLoss": "ctc_loss",
}
# A file that mentions none of these holds no such call.
NEEDLES = re.compile("|".join([*FUNCTIONAL, *CLASSES]).encode())

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_PREDICTION = frozenset({
    "logit", "logits", "pred", "preds", "prediction", "predictions", "output", "outputs", "out",
    "score", "scores", "yhat", "hat", "prob", "probs", "probas", "probabilities", "student",
})  # fmt: skip
_TARGETS = frozenset({
    "target", "targets", "tgt", "tgts", "label", "labels", "lbl", "lbls", "gt", "truth", "gold",
    "answer", "answers", "true", "teacher", "onehot",
})  # fmt: skip
_WEAK_TARGET = frozenset({"y", "ys"})  # `y_pred` is a prediction; `y` alone a target
_POSITIVE, _NEGATIVE = (
    frozenset({"positive", "positives", "pos"}),
    frozenset({"negative", "negatives", "neg"}),
)
_SAME = frozenset({  # tensor methods that keep what a tensor is: `targets.long()` is targets
    "float", "double", "half", "long", "int", "bool", "to", "view", "reshape", "flatten",
    "squeeze", "unsqueeze", "contiguous", "transpose", "permute", "t", "type", "cuda", "cpu",
    "detach", "clone", "view_as", "expand", "expand_as",
})  # fmt: skip
_MADE_PREDICTION = frozenset({"softmax", "log_softmax", "sigmoid", "logsigmoid", "log_sigmoid"})
_MODELS = frozenset({  # a call of one of these makes a prediction: `model(x)`, `self.head(h)`
    "model", "models", "net", "network", "module", "head", "classifier", "encoder", "decoder",
    "forward", "predict",
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class LossCall:
    loss: str  # the functional name: "cross_entropy"
    call: Call
    slots: tuple[Slot, ...]
    args: tuple[ast.expr | None, ...]  # per slot; None: not given, or not known (`*args`)
    key: tuple[str, ...]  # the loss, then each argument's syntax tree: a call and its moves

    @property
    def line(self) -> int:
        return self.call.line

    @property
    def shown(self) -> str:
        """The loss as the reader knows it: `F.cross_entropy` as written, or the module class;
        through an alias (`loss_fn(...)`), what the alias stands for."""
        if self.call.how is How.INSTANCE:
            return self.call.target.rpartition(".")[2]
        written = ast.unparse(self.call.node.func)
        return written if written.rpartition(".")[2] == self.loss else f"F.{self.loss}"


def loss_calls(calls: list[Call]) -> list[LossCall]:
    """The calls of asymmetric torch losses among a module's resolved calls."""
    out = []
    for call in calls:
        loss = _loss(call)
        if loss is None:
            continue
        slots = FUNCTIONAL[loss]
        args = _bind(call.effective, slots)
        dumps = tuple("" if a is None else ast.dump(a) for a in args)
        out.append(LossCall(loss, call, slots, args, (loss, *dumps)))
    return out


def _loss(call: Call) -> str | None:
    module, _, name = call.target.rpartition(".")
    if call.how is How.NAMED and module == "torch.nn.functional" and name in FUNCTIONAL:
        return name
    if call.how is How.INSTANCE and module.startswith("torch.nn") and name in CLASSES:
        return CLASSES[name]
    return None


def _bind(node: ast.Call, slots: tuple[Slot, ...]) -> tuple[ast.expr | None, ...]:
    args: list[ast.expr | None] = [None] * len(slots)
    for i, arg in enumerate(node.args[: len(slots)]):
        if isinstance(arg, ast.Starred):
            break
        args[i] = arg
    index = {slot.name: i for i, slot in enumerate(slots)}
    for keyword in node.keywords:
        if keyword.arg in index:
            args[index[keyword.arg]] = keyword.value
    return tuple(args)


def swapped_by_name(call: LossCall) -> tuple[int, int] | None:
    """Two slots whose arguments' names each say they belong in the other."""
    roles = [None if a is None else role(a) for a in call.args]
    for i, j in _pairs(call.slots):
        mine, theirs = call.slots[i].role, call.slots[j].role
        if mine and theirs and mine != theirs and roles[i] == theirs and roles[j] == mine:
            return i, j
    return None


def swapped_from(call: LossCall, before: set[tuple[str, ...]]) -> tuple[int, int] | None:
    """Two slots whose arguments stood the other way round in a call at base (``before``:
    the keys of the base's calls), when this exact call did not."""
    if call.key in before:
        return None
    for i, j in _pairs(call.slots):
        if call.slots[i].group == call.slots[j].group or not (call.args[i] and call.args[j]):
            continue
        exchanged = list(call.key)
        exchanged[i + 1], exchanged[j + 1] = exchanged[j + 1], exchanged[i + 1]
        if tuple(exchanged) in before:
            return i, j
    return None


def _pairs(slots: tuple[Slot, ...]) -> Iterator[tuple[int, int]]:
    for i in range(len(slots)):
        for j in range(i + 1, len(slots)):
            yield i, j


def role(expr: ast.expr) -> str | None:
    """What an argument's code says it is: "prediction", "target", "positive", "negative"."""
    while True:
        if isinstance(expr, ast.Subscript):
            key = expr.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return _role_of_name(key.value)
            expr = expr.value
        elif isinstance(expr, ast.Call):
            func = expr.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if isinstance(func, ast.Attribute) and name in _SAME:
                expr = func.value  # `targets.long()` is still the targets
                continue
            if name in _MADE_PREDICTION:
                return "prediction"
            if name == "one_hot":
                return "target"
            return "prediction" if _words(name) & _MODELS else None
        elif isinstance(expr, ast.Attribute):
            return _role_of_name(expr.attr)
        elif isinstance(expr, ast.Name):
            return _role_of_name(expr.id)
        else:
            return None


def _words(name: str) -> set[str]:
    return {w.lower() for w in _WORDS.findall(name)}


def _role_of_name(name: str) -> str | None:
    words = _words(name)
    prediction, target = bool(words & _PREDICTION), bool(words & _TARGETS)
    if prediction and target:
        return None  # `target_logits`: a teacher's logits, say; the name cannot tell
    if prediction:
        return "prediction"
    if target or words & _WEAK_TARGET:
        return "target"
    positive, negative = bool(words & _POSITIVE), bool(words & _NEGATIVE)
    if positive != negative:
        return "positive" if positive else "negative"
    return None
