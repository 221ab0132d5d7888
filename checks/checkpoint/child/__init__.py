"""Child-side code of the checkpoint check: runs under the user's interpreter (stdlib + torch).

``programs`` holds the two entry points the parent names (one per revision, each over every
variant the factory returns); ``describe``
reads a model built on the meta device; ``load`` reads torch.save checkpoints with
``weights_only=True``; ``dry_run`` loads metadata into the meta model; ``equivalence``
compares outputs with real weights; ``source`` reads the model's source (its own load shims,
keys registered under a condition, the line that makes a key); ``keys`` rewrites keys, for
both sides; ``policy`` holds what both sides agree on.
"""
