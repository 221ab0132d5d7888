"""For `gradgate init`'s guess: inputs for a model's ``forward``, from its first layer.

Child-side. The first required argument takes token ids below the vocabulary when the model
starts with an embedding, else random floats of its first convolution's channels or first linear
layer's width; a later one takes the same when it is named like token ids, timesteps when named
like time (a diffusion U-Net's ``forward(x, time)``). A guess is a list of
``{"name", "kind": "tokens" | "steps" | "float", "shape", "high"}``.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

BATCH, TOKENS, IMAGE, STEPS = 2, 8, 32, 16
SKIP_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
_TOKEN_NAMES = r"^(idx|ids|input_ids|tokens?|token_ids|input_tokens|x)$"
_TIME_NAMES = r"^(t|time|times|timesteps?|steps?|sigmas?|noise_levels?)$"


def guess_inputs(model: Any, device: Any) -> list[dict[str, Any]]:
    """The first guess at ``forward``'s required arguments that the model accepts."""
    import torch

    required = [
        name
        for name, p in inspect.signature(model.forward).parameters.items()
        if p.kind not in SKIP_KINDS and p.default is p.empty
    ]
    if not required:
        raise TypeError("forward() takes no required argument to guess")
    failures = []
    for guess in _input_guesses(model, required):
        try:
            with torch.no_grad():
                _call(model, guess, device)
        except Exception as exc:  # the model rejected these inputs: try the next guess
            failures.append(f"{type(exc).__name__}: {exc}")
            continue
        return guess
    if not failures:
        raise TypeError(f"no inputs to guess for forward({', '.join(required)})")
    raise TypeError("no guessed inputs worked: " + "; ".join(failures)[:400])


def _input_guesses(model: Any, required: list[str]) -> list[list[dict[str, Any]]]:
    """Guesses for the first argument from the first layer; a later argument takes the same
    when it is named like token ids, and timesteps when named like time (a diffusion U-Net's
    ``forward(x, time)``)."""
    import torch

    layers = [m for m in model.modules() if not list(m.children())]
    embedding = next((m for m in layers if isinstance(m, torch.nn.Embedding)), None)
    first = next(
        (
            m
            for m in layers
            if isinstance(m, (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d, torch.nn.Linear))
        ),
        None,
    )
    leads: list[dict[str, Any]] = []
    if embedding is not None:
        leads.append({"kind": "tokens", "shape": [BATCH, TOKENS], "high": embedding.num_embeddings})
    if first is not None:
        if isinstance(first, torch.nn.Linear):
            shapes = [[BATCH, first.in_features], [BATCH, TOKENS, first.in_features]]
        else:
            spatial = {torch.nn.Conv1d: 1, torch.nn.Conv2d: 2, torch.nn.Conv3d: 3}[type(first)]
            shapes = [[BATCH, first.in_channels] + [IMAGE] * spatial]
        leads += [{"kind": "float", "shape": shape} for shape in shapes]
    times = (
        {"kind": "steps", "shape": [BATCH], "high": STEPS},
        {"kind": "float", "shape": [BATCH]},
    )
    guesses = []
    for lead in leads:
        for time in times:
            guess = [{"name": required[0], **lead}]
            for name in required[1:]:
                if re.match(_TOKEN_NAMES, required[0]) and re.match(_TOKEN_NAMES, name):
                    guess.append({"name": name, **lead})
                elif re.match(_TIME_NAMES, name.lower()):
                    guess.append({"name": name, **time})
                else:
                    break
            else:
                if guess not in guesses:
                    guesses.append(guess)
    return guesses


def make_inputs(guess: list[dict[str, Any]], device: Any) -> dict[str, Any]:
    """The tensors a recipe's inputs describe (seeded by the caller)."""
    import torch

    made = {}
    for spec in guess:
        if spec["kind"] in ("tokens", "steps"):
            made[spec["name"]] = torch.randint(0, spec["high"], spec["shape"], device=device)
        else:
            made[spec["name"]] = torch.randn(spec["shape"], device=device)
    return made


def _call(model: Any, guess: list[dict[str, Any]], device: Any) -> None:
    outputs = model(**make_inputs(guess, device))
    if not tensors(outputs):
        raise TypeError("forward() returned no floating-point tensor to differentiate")


def tensors(outputs: Any) -> list[Any]:
    """The floating-point tensors in what ``forward`` returned (nested tuples, lists, dicts)."""
    import torch

    found, stack = [], [outputs]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor) and item.is_floating_point():
            found.append(item)
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found
