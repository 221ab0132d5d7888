"""What both sides agree on, importable without torch: the oldest torch trusted with .pt files,
where trainers keep the state dict inside a bigger checkpoint, and how variants pair."""

from __future__ import annotations

# torch.load(weights_only=True) is only trusted from this version on; older versions are told
# to upgrade instead (their weights_only unpickler had holes).
MIN_TORCH = (2, 10)
# Where trainers put the model's state dict inside a bigger checkpoint, tried in this order
# when no `key` is configured.
KNOWN_KEYS = ("state_dict", "model_state_dict", "model", "module", "net", "network")
# A factory's named variants pair by name across revisions; its one model pairs with this one
# (the PR that introduces variants keeps comparing the model it had with `default`).
DEFAULT_VARIANT = "default"


def variant_key(name: str | None) -> str:
    """The name a variant pairs by: its own, `default` for a factory's one model."""
    return DEFAULT_VARIANT if name is None else name
