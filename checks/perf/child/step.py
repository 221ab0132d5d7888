"""Child-side: the training step the perf check times, the gradient check's or the user's own.

A factory may return a mapping with a ``step`` beside ``model`` and ``inputs``: a callable
called like the model with the model first, ``step(model, *args, **kwargs)``, on the device
(your optimizer, AMP, gradient scaler, several micro-batches: what your training really
does). The model builder knows only ``model``, ``inputs`` and ``loss``, so the factory is
wrapped here and the ``step`` taken out of its answer before the builder sees it.
"""

from __future__ import annotations

from typing import Any, Callable

from ...gradient.child.loss import make_loss
from ...model.child import Loaded, Problem, call_model
from ...sandbox.child import Target

STEP_KEY = "step"
LEARNING_RATE = 1e-3


class StepTarget:
    """The sandbox target, whose factory's ``step`` is kept here and not passed on."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.step: Any | None = None
        self.given = False

    def load(self) -> Callable[..., Any]:
        factory = self.target.load()

        def without_step(*args: Any, **kwargs: Any) -> Any:
            made = factory(*args, **kwargs)
            if isinstance(made, dict) and STEP_KEY in made:
                made = dict(made)
                self.step, self.given = made.pop(STEP_KEY), True
                if not callable(self.step):
                    raise Problem("bad-step", got=_type_name(self.step))
            return made

        return without_step


def training_step(loaded: Loaded, step: Any | None, *, device: Any) -> Callable[[], None]:
    """The user's ``step`` on the loaded model and inputs, else forward, loss, backward, SGD."""
    if step is not None:
        user_step = step
        return lambda: user_step(loaded.model, *loaded.args, **loaded.kwargs)
    import torch

    trainable = [p for p in loaded.model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=LEARNING_RATE) if trainable else None

    def sgd_step() -> None:
        loss = make_loss(call_model(loaded), loaded.loss, device=device)
        if loss is not None and loss.requires_grad:
            loss.backward()
        if optimizer is not None:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

    return sgd_step


def batch_size(loaded: Loaded) -> int | None:
    """Samples per step: the first dimension of the first tensor among the inputs, if any."""
    import torch

    for value in [*loaded.args, *loaded.kwargs.values()]:
        if isinstance(value, torch.Tensor) and value.dim() > 0:
            return int(value.shape[0])
    return None


def _type_name(value: Any) -> str:
    kind = type(value)
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
