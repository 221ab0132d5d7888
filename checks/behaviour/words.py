"""The behaviour check's findings in words (pure): what broke, where, by how much, what to do."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gradgate.checks.base import Severity
from gradgate.checks.model.lines import ClassSource, Spot
from gradgate.checks.paste import TAKES_EFFECT

_SKIP = "`checks: behaviour: variants: <name>: skip: [{probe}]`"
ALLOW_HINT = (
    "If this is intended, paste the `allow` rule in the details, with your reason; the rule "
    f"{TAKES_EFFECT}."
)


def module_words(module: str | None, classes: Mapping[str, ClassSource]) -> str:
    if module is None:
        return "no single module (its inputs already differed wherever its output did)"
    source = classes.get(module)
    kind = f" (`{source.class_name}`)" if source is not None else ""
    return f"the model's own forward{kind}" if module == "" else f"`{module}`{kind}"


def size(diff: Any, scale: Any) -> str:
    if diff is None:
        return "its shape differs"
    return f"by up to {float(diff):.3g} where its values reach {float(scale or 0):.3g}"


def where(spot: Spot | None) -> str:
    return "" if spot is None else f"; {spot.words}"


def _outputs(result: Mapping[str, Any]) -> str:
    if "count" in result:
        base, head = result["count"]
        return f"head returns {head} output tensor(s), base {base}"
    index = result.get("index", 0)
    if "shape" in result:
        base, head = result["shape"]
        return f"output {index} has shape {head} at head, {base} at base"
    return f"output {index} differs {size(result.get('diff'), result.get('scale'))}"


def eval_random(result: Mapping[str, Any], module: str | None,
                classes: Mapping[str, ClassSource], spot: Spot | None,
                severity: Severity) -> str:  # fmt: skip
    first = result.get("first") or {}
    return (
        "In eval mode the output now depends on the random state: two forwards on one input "
        f"from different seeds differ ({_outputs(result.get('outputs') or {})}); at base they "
        f"agreed. It starts in {module_words(module, classes)}, whose output differs "
        f"{size(first.get('diff'), first.get('scale'))} on the same input{where(spot)}. "
        "Dropout (or another random op) left on in eval: `F.dropout(x, p, training=True)`, or "
        "one applied without `self.training`."
    )


def eval_state(result: Mapping[str, Any], module: str | None,
               classes: Mapping[str, ClassSource], spot: Spot | None,
               severity: Severity) -> str:  # fmt: skip
    names = ", ".join(f"`{b['name']}`" for b in (result.get("buffers") or [])[:5])
    at_base = "" if severity is Severity.BLOCKING else " (it did at base too)"
    return (
        f"An eval-mode forward changes the model's state{at_base}: buffers {names} differ "
        f"after it, in {module_words(module, classes)}{where(spot)}. Running statistics "
        "updated in eval (BatchNorm in train mode, `training=True`) or a counter moved: "
        "evaluation would change the model it evaluates."
    )


def causality(result: Mapping[str, Any], module: str | None,
              classes: Mapping[str, ClassSource], spot: Spot | None,
              severity: Severity) -> str:  # fmt: skip
    first = result.get("first") or {}
    kept, dim = result.get("kept"), result.get("dim")
    return (
        f"The model now sees the future: changing the input after position {kept} (dimension "
        f"{dim}) changes the outputs before it ({_outputs(result.get('outputs') or {})}); at "
        f"base it did not. It starts in {module_words(module, classes)}, whose output there "
        f"differs {size(first.get('diff'), first.get('scale'))}{where(spot)}. A causal mask "
        "dropped or misapplied? If this input has no sequence order, set the variant's "
        f"`sequence_dim`, or {_SKIP.format(probe='causality')}."
    )


INVARIANT: Mapping[str, Callable[..., str]] = {
    "eval-random": eval_random,
    "eval-state": eval_state,
    "causality": causality,
}


def output_changed(outputs: Mapping[str, Any], first: Mapping[str, Any] | None,
                   classes: Mapping[str, ClassSource], spot: Spot | None) -> str:  # fmt: skip
    module = None if first is None else str(first["module"])
    start = (
        f"It starts in {module_words(module, classes)}, whose output differs "
        f"{size(first.get('diff'), first.get('scale'))} while its inputs agreed{where(spot)}."
        if first is not None
        else "No module computes something else on inputs that agreed: the change is "
        "between modules, or in one gradgate could not record."
    )
    return (
        "With base's weights loaded and the same random state, head's model computes "
        f"something else in eval mode: {_outputs(outputs)}. {start} Softmax over another axis, "
        "a scale or a residual dropped, norms moved: if the change is intended, old "
        "checkpoints mean something else now."
    )


def loss_changed(loss: Mapping[str, Any], spot: Spot | None) -> str:
    return (
        "With base's weights, the same batch and the same random state, the train-mode loss "
        f"is {_number(loss.get('head'))} at head and was {_number(loss.get('base'))} at base, "
        f"while the outputs agree{where(spot)}. A loss reduction changed (mean to sum), an "
        "axis, or a weight: training would follow another objective."
    )


def gradient_changed(gradients: Mapping[str, Any], classes: Mapping[str, ClassSource],
                     spot: Spot | None) -> str:  # fmt: skip
    first = gradients["differ"][0]
    name = first["parameter"]
    if "missing" in first:
        how = f"has no gradient at {first['missing']}"
    else:
        how = f"differs {size(first.get('diff'), first.get('scale'))}"
    more = int(gradients.get("count") or 1) - 1
    others = f" ({more} more parameter(s) differ upstream)" if more else ""
    return (
        "With base's weights and the same batch, the outputs and the loss agree but the "
        f"gradients do not: `{name}`, the first in backward order, {how}{others}{where(spot)}. "
        "A `.detach()` on one of two paths leaves every parameter learning, only less: "
        "training would go elsewhere."
    )


def training_changed(after: Mapping[str, Any], buffers: Sequence[Mapping[str, Any]],
                     spot: Spot | None) -> str:  # fmt: skip
    what = []
    if not after.get("equal", True):
        what.append(f"the eval outputs ({_outputs(after)})")
    if buffers:
        names = ", ".join(f"`{b['name']}`" for b in buffers[:5])
        what.append(f"buffers {names}")
    return (
        "From base's weights, with the same outputs, loss and gradients at the start, two "
        f"training steps end elsewhere: {' and '.join(what)} differ{where(spot)}. Running "
        "statistics kept otherwise (BatchNorm's momentum, eps or mode) or a state updated "
        "differently in training."
    )


def init_changed(changed: Sequence[Mapping[str, Any]], spot: Spot | None) -> str:
    shown = "; ".join(
        f"`{c['name']}` mean {c['base'][0]:.3g}, std {c['base'][1]:.3g} at base, mean "
        f"{c['head'][0]:.3g}, std {c['head'][1]:.3g} at head"
        for c in changed[:5]
    )
    more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
    return (
        f"From the same seed, the model is initialised otherwise: {shown}{more}{where(spot)}. "
        "Often intended (a new init scheme); if not, training starts elsewhere."
    )


def at_loss(name: str) -> str:
    return f"it points at a line this PR changed in `{name}`, the factory's loss"


def raised(error: str) -> str:
    return (
        f"Same-weights probes not run: head's model, with base's weights, raised on base's "
        f"inputs: {error}. If the inputs changed on purpose, nothing to do."
    )


def not_compared(why: str) -> str:
    if why == "too-large":
        return (
            "Same-weights probes not run: the model has more parameters than "
            "`max_parameters`; the invariants were probed."
        )
    return (
        "Same-weights probes not run: base's weights do not load into head's model (the "
        "`checkpoint` check says which keys); the invariants were probed."
    )


def unpaired(name: str, revision: str) -> str:
    return f"Variant `{name}` exists only at {revision}: nothing to compare it with."


def _number(value: Any) -> str:
    return "none" if value is None else f"{float(value):.6g}"


def allowed(reason: str) -> str:
    return f"Allowed by the config: {reason}"
