"""What both sides agree on, importable without torch: the oldest torch trusted with .pt files,
and where trainers keep the state dict inside a bigger checkpoint."""

from __future__ import annotations

# torch.load(weights_only=True) is only trusted from this version on; older versions are told
# to upgrade instead (their weights_only unpickler had holes).
MIN_TORCH = (2, 10)
# Where trainers put the model's state dict inside a bigger checkpoint, tried in this order
# when no `key` is configured.
KNOWN_KEYS = ("state_dict", "model_state_dict", "model", "module", "net", "network")
