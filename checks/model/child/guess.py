"""A program for `gradgate init`: guess how to build a tiny model and its inputs, and try it.

Child-side (see ``checks.sandbox.child``). The parent names candidate classes (module and class
name, most likely first); for each, this builds the class with tiny sizes and calls it on
guessed inputs, and returns the first recipe that works as JSON, for the parent to write down
as a starter factory:

    {"module", "cls", "kwargs", "config": None | {"module", "cls", "param", "kwargs"},
     "inputs": [{"name", "kind": "tokens" | "float", "shape", "high"}], "parameters",
     "tried": [[class, why it failed], ...]}

Sizes: an integer argument (of the constructor, or a field of a config dataclass or config
object the constructor takes) is shrunk by what its name says it is (layers, heads, widths,
vocabulary, context); inputs come from the ``forward`` signature and the model's first layer
(an embedding takes token ids; a convolution or linear layer takes floats of its width).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import re
import sys
from typing import Any

from .build import prepare

BATCH, TOKENS, IMAGE = 2, 8, 32
# (pattern on the argument's name, tiny value); the first match wins.
_TINY = (
    (r"kv_head|key_value_head|n_kv|num_kv", 2),
    (r"head", 2),
    (r"layer|depth|n_block|num_block|blocks", 2),
    (r"vocab|n_token|num_token|num_embeddings|n_embed_tokens", 64),
    (r"class|label", 4),
    (r"block_size|seq|context|max_len|ctx|position|max_pos", 16),
    (r"intermediate|ffn|mlp|ff_|inner|hidden_dim", 32),
    (r"embd|embed|dim|width|hidden|d_model|model_dim|features|channels|size", 16),
)
_KEEP = r"^in_ch|in_channels|^in_|patch|stride|kernel|groups|expansion|ratio|factor|seed"
_TOKEN_NAMES = r"^(idx|ids|input_ids|tokens?|token_ids|input_tokens|x)$"
_SKIP_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
_CONFIG_NAMES = r"(config|cfg|args|params|hparams|settings|conf)$"


def guess_factory(request: dict[str, Any], target: Any) -> dict[str, Any]:
    """The program: the first candidate that builds and runs, else every reason it did not."""
    device = prepare(request)
    if request["kwargs"].get("src_layout"):
        sys.path.insert(1, os.path.join(request["root"], "src"))
    tried: list[list[str]] = []
    for candidate in request["kwargs"]["candidates"]:
        label = f"{candidate['module']}.{candidate['cls']}"
        try:
            recipe = _try(candidate["module"], candidate["cls"], device)
        except Exception as exc:  # user code: any failure means "not this one"
            tried.append([label, f"{type(exc).__name__}: {exc}"[:300]])
            continue
        recipe["tried"] = tried
        return recipe
    return {"tried": tried}


def _try(module_name: str, cls_name: str, device: Any) -> dict[str, Any]:
    import torch

    module = importlib.import_module(module_name)
    cls = getattr(module, cls_name)
    kwargs, config = _constructor(cls, module)
    if config is not None:
        config_obj = getattr(importlib.import_module(config["module"]), config["cls"])
        kwargs = {**kwargs, config["param"]: config_obj(**config["kwargs"])}
    model = cls(**kwargs).to(device)
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{cls_name}(...) is not a torch.nn.Module")
    inputs = _inputs(model, device)
    plain = {k: v for k, v in kwargs.items() if config is None or k != config["param"]}
    return {
        "module": module_name,
        "cls": cls_name,
        "kwargs": plain,
        "config": config,
        "inputs": inputs,
        "parameters": sum(p.numel() for p in model.parameters()),
    }


def _tiny(name: str, default: Any) -> Any:
    """A tiny value for an integer argument named ``name`` (``default``: its default, if any)."""
    lowered = name.lower()
    if isinstance(default, int) and (default <= 4 or re.search(_KEEP, lowered)):
        return default
    for pattern, value in _TINY:
        if re.search(pattern, lowered):
            return value
    if isinstance(default, int):
        return default if default <= 64 else 16
    raise TypeError(f"no tiny value known for the required argument `{name}`")


def _is_int(param: Any) -> bool:
    annotation = param.annotation
    if isinstance(param.default, bool):
        return False
    return isinstance(param.default, int) or annotation in (int, "int")


def _constructor(cls: type, module: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Keyword arguments for ``cls``: integers shrunk; a config parameter built from its class."""
    kwargs: dict[str, Any] = {}
    config = None
    for name, param in inspect.signature(cls).parameters.items():
        if param.kind in _SKIP_KINDS:
            continue
        if _is_int(param):
            kwargs[name] = _tiny(name, param.default if param.default is not param.empty else None)
        elif param.default is param.empty:
            config_cls = _config_class(param, module)
            if config_cls is None:
                raise TypeError(f"cannot guess the required argument `{name}`")
            config = {
                "module": config_cls.__module__,
                "cls": config_cls.__qualname__,
                "param": name,
                "kwargs": _config_kwargs(config_cls),
            }
    return kwargs, config


def _config_class(param: Any, module: Any) -> type | None:
    """The class of a config argument: its annotation, else a `...Config` class in the module."""
    annotation = param.annotation
    if isinstance(annotation, str):
        annotation = getattr(module, annotation.split(".")[-1].strip("'\""), None)
    if (
        isinstance(annotation, type)
        and annotation is not param.empty
        and annotation.__module__ not in ("builtins", "typing")
    ):
        return annotation
    if not re.search(_CONFIG_NAMES, param.name.lower()):
        return None
    found = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type)
        and re.search(r"(Config|Cfg|Args|Params|Settings)$", obj.__name__)
        and _config_kwargs(obj)
    ]
    return found[0] if len(found) == 1 else None


def _config_kwargs(config_cls: type) -> dict[str, Any]:
    """Tiny values for the integer fields of a config dataclass, or of a config's constructor."""
    fields: list[tuple[str, Any]]
    if dataclasses.is_dataclass(config_cls):
        fields = [
            (f.name, f.default)
            for f in dataclasses.fields(config_cls)
            if f.init and (f.type in (int, "int") or type(f.default) is int)
        ]
    else:
        fields = [
            (name, p.default)
            for name, p in inspect.signature(config_cls).parameters.items()
            if p.kind not in _SKIP_KINDS and _is_int(p)
        ]
    return {
        name: _tiny(name, None if default is dataclasses.MISSING else default)
        for name, default in fields
    }


def _inputs(model: Any, device: Any) -> list[dict[str, Any]]:
    """The first guess at ``forward``'s required arguments that the model accepts."""
    import torch

    required = [
        name
        for name, p in inspect.signature(model.forward).parameters.items()
        if p.kind not in _SKIP_KINDS and p.default is p.empty
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
    raise TypeError("no guessed inputs worked: " + "; ".join(failures)[:400])


def _input_guesses(model: Any, required: list[str]) -> list[list[dict[str, Any]]]:
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
    guesses: list[list[dict[str, Any]]] = []
    if embedding is not None:
        tokens = {"kind": "tokens", "shape": [BATCH, TOKENS], "high": embedding.num_embeddings}
        guesses.append([{"name": name, **tokens} for name in required])
    if first is not None:
        if isinstance(first, torch.nn.Linear):
            shapes = [[BATCH, first.in_features], [BATCH, TOKENS, first.in_features]]
        else:
            spatial = {torch.nn.Conv1d: 1, torch.nn.Conv2d: 2, torch.nn.Conv3d: 3}[type(first)]
            shapes = [[BATCH, first.in_channels] + [IMAGE] * spatial]
        for shape in shapes:
            guesses.append([{"name": name, "kind": "float", "shape": shape} for name in required])
    return [g for g in guesses if _fits(g, required)]


def _fits(guess: list[dict[str, Any]], required: list[str]) -> bool:
    """One tensor per required argument; several only when all could be token ids."""
    return len(required) == 1 or all(re.match(_TOKEN_NAMES, g["name"]) for g in guess)


def make_inputs(guess: list[dict[str, Any]], device: Any) -> dict[str, Any]:
    """The tensors a recipe's inputs describe (seeded by the caller)."""
    import torch

    made = {}
    for spec in guess:
        if spec["kind"] == "tokens":
            made[spec["name"]] = torch.randint(0, spec["high"], spec["shape"], device=device)
        else:
            made[spec["name"]] = torch.randn(spec["shape"], device=device)
    return made


def _call(model: Any, guess: list[dict[str, Any]], device: Any) -> None:
    import torch

    outputs = model(**make_inputs(guess, device))
    stack: list[Any] = [outputs]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor) and item.is_floating_point():
            return
        if isinstance(item, (tuple, list)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    raise TypeError("forward() returned no floating-point tensor to differentiate")
