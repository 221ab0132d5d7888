"""The loss the gradient check differentiates: the user's, or a seeded random projection.

``out.sum()`` gives near-zero gradients through softmax and LayerNorm (their outputs sum to a
constant), which would make healthy parameters look dead (scenario N8). A fixed random
projection of every floating output does not: d loss / d output is a random unit vector, the
same at every step and at both revisions when the outputs have the same shapes.
"""

from __future__ import annotations

from typing import Any, Callable

PROJECTION_SEED = 0x6A7E  # independent of the user's seed, so changing it moves only the model


class BadLoss(Exception):
    """The user's loss returned something that is not a one-element tensor."""

    def __init__(self, got: str) -> None:
        super().__init__(got)
        self.got = got


def floating_tensors(value: Any) -> list[Any]:
    """Every floating-point tensor in the outputs: tensors, tuples, lists and mappings
    (Hugging Face's ModelOutput is a mapping), in a stable order."""
    import torch

    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            if item.is_floating_point():
                found.append(item)
        elif isinstance(item, (tuple, list)):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
    return found


def projection(outputs: Any, *, device: Any) -> Any:
    """sum_i <out_i, R_i> / sqrt(numel_i), R_i ~ N(0, 1) from a fixed seed; None: no outputs."""
    import torch

    tensors = floating_tensors(outputs)
    if not tensors:
        return None
    generator = torch.Generator(device=device).manual_seed(PROJECTION_SEED)
    total = None
    for tensor in tensors:
        weights = torch.randn(
            tensor.shape, generator=generator, device=tensor.device, dtype=tensor.dtype
        )
        # A dot product of flat views: no output-sized temporary besides the weights.
        term = torch.dot(tensor.reshape(-1), weights.reshape(-1)) / max(tensor.numel(), 1) ** 0.5
        total = term if total is None else total + term
    return total


def make_loss(outputs: Any, user_loss: Callable[[Any], Any] | None, *, device: Any) -> Any:
    """The scalar to differentiate, or None when the outputs hold no floating tensor."""
    import torch

    if user_loss is None:
        return projection(outputs, device=device)
    value = user_loss(outputs)
    if not isinstance(value, torch.Tensor) or value.numel() != 1:
        kind = type(value).__name__
        raise BadLoss(
            kind
            if not isinstance(value, torch.Tensor)
            else f"a tensor of shape {list(value.shape)}"
        )
    return value.reshape(())
