"""For `gradgate init`'s guess: how to build a class tiny, and what a variant may change.

Child-side. ``plans(cls, ...)`` gives the ways to build ``cls``, each a list of parts built in
order, the class's own last (``checks.model.child.guess`` shows a part's fields); ``build``
builds one, with changes for a variant.

Sizes: an integer argument (of the constructor, or a field of a config it takes), or a required
one without annotation named like a size (``dim``, ``depth``), is shrunk by what its name says
it is (layers, heads, widths, vocabulary, context). A required config argument is built from its
annotated class (a dataclass or a class taking integers: called with them; otherwise made bare
and given its fields, class-level defaults included, as attributes), else from the model class's
``get_default_config()`` (minGPT), else from the one `...Config` class of the module. A required
argument that takes a module (annotated with a module class, or named ``model``, ``encoder``,
``attn_layers`` ...) makes the class a wrapper, built around a tiny instance of another class of
the package: the annotation's subclasses, else the other candidates, one named like the
argument and those the docs call first. A constructor that hands ``**kwargs`` to its base class
(x-transformers' ``Decoder``) takes the base class's arguments too.

Features, for the variants: a dropout argument at 0 or None (to 0.1), a boolean flag (flipped),
an ``Optional[bool]`` (True) or sized ``Optional[int]`` flag left None; not flags that change
how the model runs or loads rather than what it computes (``verbose``, ``compile``,
``pretrained``).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import sys
from typing import Any

from .inputs import IMAGE, SKIP_KINDS

DROPOUT = 0.1
_MAX_INNER = 4  # classes tried as the module a wrapper takes
# (pattern on the argument's name, tiny value); the first match wins.
_TINY = (
    (r"image_size|img_size|resolution", IMAGE),
    (r"kv_head|key_value_head|n_kv|num_kv", 2),
    (r"head_dim|dim_head|head_size|d_head", 8),
    (r"head", 2),
    (r"layer|depth|n_block|num_block|blocks", 2),
    (r"vocab|n_token|num_token|num_embeddings|n_embed_tokens", 64),
    (r"class|label", 4),
    (r"block_size|seq|context|max_len|ctx|position|max_pos", 16),
    (r"intermediate|ffn|mlp|ff_|inner|hidden_dim", 32),
    (r"embd|embed|dim|width|hidden|d_model|model_dim|features|channels|size", 16),
)
_KEEP = r"^in_ch|in_channels|^in_|patch|stride|kernel|groups|expansion|ratio|factor|seed"
_CONFIG_NAMES = r"(config|cfg|args|params|hparams|settings|conf)$"
_CONFIG_CLASSES = r"(Config|Cfg|Args|Params|Settings)$"
_DEFAULT_CONFIG = ("get_default_config", "default_config")
# A required argument with one of these names takes a module: the class wraps it.
_MODULE_NAMES = (
    r"^(model|net|network|backbone|encoder|decoder|trunk|denoise_fn|denoiser|unet"
    r"|transformer|attn_layers|base_model|inner_model)$"
)
_DROPOUT = r"dropout|drop_rate|drop_prob|pdrop|p_drop|drop_path|^drop$|_drop$"
# Flags that change how the model runs or loads, not what it computes, or need the network.
_NOT_FEATURE = (
    r"verbose|debug|cuda|gpu|device|compile|checkpoint|pretrained|download|load|inplace"
    r"|distributed|fused|export|^return_|^output_|(^|_)(amp|jit|onnx|half|fp16|bf16)(_|$)"
)
_PRESET = r"^(model_type|arch|preset)$"  # a name that fills the sizes a config leaves None


def import_class(module_name: str, cls_name: str) -> Any:
    """The class ``cls_name`` of ``module_name``, which must be a torch.nn.Module."""
    import torch

    cls = getattr(importlib.import_module(module_name), cls_name)
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
        raise TypeError(f"{cls_name} is not a torch.nn.Module subclass")
    return cls


def plans(
    cls: type, *, var: str, role: str, pool: list[dict[str, Any]], documented: set[str]
) -> list[list[dict[str, Any]]]:
    """Ways to build ``cls`` tiny: each the parts in build order, ``cls``'s own part last
    (several when it wraps a module: one per class tried inside it)."""
    module = sys.modules[cls.__module__]
    values: dict[str, Any] = {}
    refs: dict[str, str] = {}
    before: list[dict[str, Any]] = []
    wrapped = None
    for param in parameters(cls):
        required = param.default is param.empty
        if _is_int(param):
            values[param.name] = _tiny(param.name, None if required else param.default)
        elif not required:
            continue
        elif takes_module(param, module):
            if wrapped is not None:
                raise TypeError(f"two module arguments to guess, `{wrapped}` and `{param.name}`")
            wrapped = param.name
        elif (config := _config_part(param, cls, module, var)) is not None:
            before.append(config)
            refs[param.name] = config["var"]
        elif _sized(param.name):
            values[param.name] = _tiny(param.name, None)
        else:
            raise TypeError(f"cannot guess the required argument `{param.name}`")
    features = [f for p in parameters(cls) if (f := _feature(p.name, p, module)) is not None]
    part = _part(var, role, cls, style="call", values=values, refs=refs, features=features)
    if wrapped is None:
        return [[*before, part]]
    if role != "model":
        raise TypeError(f"it wraps a module (`{wrapped}`) itself")
    found: list[list[dict[str, Any]]] = []
    for inner in _inner_classes(cls, wrapped, module, pool, documented)[:_MAX_INNER]:
        inner_var = _snake(inner.__name__)
        try:
            ways = plans(inner, var=inner_var, role="module", pool=pool, documented=documented)
        except Exception:  # this class cannot be planned: the next one may
            continue
        wrapping = dict(part, refs={wrapped: inner_var, **refs})
        found += [[*way, *before, wrapping] for way in ways]
    if not found:
        raise TypeError(
            f"cannot guess the module argument `{wrapped}`: no other class of the package "
            "could be built to go inside it"
        )
    return found


def _part(var: str, role: str, cls: type, **fields: Any) -> dict[str, Any]:
    return {"var": var, "role": role, "module": cls.__module__, "cls": cls.__qualname__,
            "method": None, **fields}  # fmt: skip


def _snake(name: str) -> str:
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return f"{snake}_module" if snake in ("model", "config", "inputs", "torch") else snake


def parameters(cls: type) -> list[inspect.Parameter]:
    """The constructor's named parameters, through ``**kwargs`` handed on to a parent class
    (x-transformers' ``Decoder(**kwargs)`` builds its ``AttentionLayers``)."""
    found: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None:
            continue
        if klass is object or klass.__module__.split(".")[0] == "torch":
            break
        try:
            params = list(inspect.signature(init).parameters.values())[1:]  # after `self`
        except (TypeError, ValueError):
            break
        for param in params:
            if param.kind not in SKIP_KINDS:
                found.setdefault(param.name, param)
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            break
    return list(found.values())


def _annotation(param: Any, module: Any) -> Any:
    """The parameter's annotation as an object (None: none): a string one looked up in
    ``module``."""
    annotation = param.annotation
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        annotation = getattr(module, annotation.split(".")[-1].strip("'\""), annotation)
    return annotation


def takes_module(param: Any, module: Any) -> bool:
    import torch

    annotation = _annotation(param, module)
    if isinstance(annotation, type):
        return issubclass(annotation, torch.nn.Module)
    return param.default is param.empty and bool(re.match(_MODULE_NAMES, param.name.lower()))


def _inner_classes(
    wrapper: type, name: str, module: Any, pool: list[dict[str, Any]], documented: set[str]
) -> list[type]:
    """The classes to try inside ``wrapper`` as its module argument ``name``: the annotation's
    subclasses in its package and the annotation itself, else the other candidates and the
    modules of the wrapper's own file; one named like the argument, then one the docs call,
    first."""
    import torch

    param = next(p for p in parameters(wrapper) if p.name == name)
    annotation = _annotation(param, module)
    found: list[type] = []
    package = getattr(annotation, "__module__", "torch").split(".")[0]
    if (
        isinstance(annotation, type)
        and issubclass(annotation, torch.nn.Module)
        and package != "torch"
    ):
        stack = list(annotation.__subclasses__())
        while stack:
            sub = stack.pop(0)
            if sub.__module__.split(".")[0] == package:
                found.append(sub)
            stack.extend(sub.__subclasses__())
        found.append(annotation)
    else:
        for candidate in pool:
            try:
                found.append(import_class(candidate["module"], candidate["cls"]))
            except Exception:  # not importable: not a class to wrap
                continue
        found += [
            obj
            for obj in vars(module).values()
            if isinstance(obj, type)
            and issubclass(obj, torch.nn.Module)
            and obj.__module__ == module.__name__
        ]
    unique = [c for i, c in enumerate(found) if c not in found[:i]]
    usable = [c for c in unique if c is not wrapper and not c.__name__.startswith("_")]

    def rank(cls: type) -> tuple[bool, bool]:
        named = name.lower() in _snake(cls.__name__) or _snake(cls.__name__) in name.lower()
        return not named, cls.__name__ not in documented

    return sorted(usable, key=rank)


def _config_part(param: Any, cls: type, module: Any, var: str) -> dict[str, Any] | None:
    """How to build a config argument: its annotated class, else the model class's default
    config (``get_default_config()``), else the one `...Config` class of its module."""
    import torch

    name = "config" if var == "model" else f"{var}_config"
    annotation = _annotation(param, module)
    if (
        isinstance(annotation, type)
        and annotation.__module__ not in ("builtins", "typing")
        and not issubclass(annotation, torch.nn.Module)
    ):
        return _config_of_class(annotation, name)
    if not re.search(_CONFIG_NAMES, param.name.lower()):
        return None
    for method in _DEFAULT_CONFIG:
        maker = getattr(cls, method, None)
        if callable(maker):
            try:
                made = maker()
            except TypeError:  # an instance method: not a default config
                continue
            return dict(_config_of_object(made, name, cls), method=method)
    found = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type) and re.search(_CONFIG_CLASSES, obj.__name__) and _fields(obj)
    ]
    return _config_of_class(found[0], name) if len(found) == 1 else None


def _config_of_class(config_cls: type, var: str) -> dict[str, Any]:
    """A dataclass or a class whose constructor takes integers: built with them tiny; else
    made bare and given its fields (class-level defaults, a CfgNode) as attributes."""
    if dataclasses.is_dataclass(config_cls):
        fields = {f.name: f for f in dataclasses.fields(config_cls) if f.init}
        values = {
            name: _tiny(name, None if f.default is dataclasses.MISSING else f.default)
            for name, f in fields.items()
            if f.type in (int, "int") or type(f.default) is int
        }
        features = [
            feature
            for name, f in fields.items()
            if (feature := _feature(name, _Field(f.default, f.type), None)) is not None
        ]
        return _part(var, "config", config_cls, style="call", values=values, refs={},
                     features=features)  # fmt: skip
    params = [p for p in parameters(config_cls)]
    if any(_is_int(p) for p in params):
        module = sys.modules[config_cls.__module__]
        values = {p.name: _tiny(p.name, _default(p)) for p in params if _is_int(p)}
        features = [f for p in params if (f := _feature(p.name, p, module)) is not None]
        return _part(var, "config", config_cls, style="call", values=values, refs={},
                     features=features)  # fmt: skip
    return _config_of_object(config_cls(), var, config_cls)


def _config_of_object(made: Any, var: str, owner: type) -> dict[str, Any]:
    """A config made bare (or by a default-config method of ``owner``), its fields set as
    attributes: integers tiny, sizes left None filled, and a preset name that would fill them
    (minGPT's ``model_type``) set to None."""
    fields = _fields(made)
    values = {}
    for name, value in fields.items():
        if type(value) is int:
            values[name] = _tiny(name, value)
        elif value is None and _sized(name):
            values[name] = _tiny(name, None)
    if any(fields[name] is None for name in values):
        values.update({n: None for n, v in fields.items() if re.match(_PRESET, n) and v})
    features = [
        feature
        for name, value in fields.items()
        if (feature := _feature(name, _Field(value, None), None)) is not None
    ]
    style = "items" if type(made) is dict else "attrs"  # a plain dict takes no attributes
    return _part(var, "config", owner, style=style, values=values, refs={}, features=features)


def _fields(config: Any) -> dict[str, Any]:
    """A config's plain fields: a mapping's items, else its class-level attributes (through its
    bases) and its own attributes; for a class, what a bare instance would have."""
    if isinstance(config, dict):
        return {k: v for k, v in config.items() if isinstance(k, str) and _plain(v)}
    klass = config if isinstance(config, type) else type(config)
    found: dict[str, Any] = {}
    for base in reversed(klass.__mro__[:-1]):
        found.update({k: v for k, v in vars(base).items() if not k.startswith("_") and _plain(v)})
    if not isinstance(config, type):
        found.update({k: v for k, v in vars(config).items() if not k.startswith("_")
                      and _plain(v)})  # fmt: skip
    return found


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


@dataclasses.dataclass
class _Field:
    """A config field seen as a parameter: its default and annotation."""

    default: Any
    annotation: Any
    empty = dataclasses.MISSING


def _default(param: Any) -> Any:
    return None if param.default is param.empty else param.default


def _feature(name: str, param: Any, module: Any) -> dict[str, Any] | None:
    """What a variant would switch on or off: a dropout at 0 or None (to 0.1), a boolean flag
    (flipped), an optional flag left None (``Optional[bool]``: True; ``Optional[int]`` sized)."""
    default = param.default
    lowered = name.lower()
    annotation = getattr(param, "annotation", None)
    kind = "" if annotation is inspect.Parameter.empty else str(annotation)
    if default is param.empty or default is dataclasses.MISSING:
        return None
    if re.search(_DROPOUT, lowered) and not isinstance(default, bool):
        if default is None or (isinstance(default, (int, float)) and default == 0):
            return {"name": name, "kind": "dropout", "default": default, "value": DROPOUT}
        return None
    if re.search(_NOT_FEATURE, lowered):
        return None
    if isinstance(default, bool):
        return {"name": name, "kind": "flag", "default": default, "value": not default}
    if default is None and re.search(r"\bbool\b", kind):
        return {"name": name, "kind": "flag", "default": None, "value": True}
    if default is None and re.search(r"\bint\b", kind) and _sized(name):
        return {"name": name, "kind": "flag", "default": None, "value": _tiny(name, None)}
    return None


def _sized(name: str) -> bool:
    return any(re.search(pattern, name.lower()) for pattern, _ in _TINY)


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


def build(parts: list[dict[str, Any]], changes: dict[tuple[str, str], Any]) -> Any:
    """Build ``parts`` in order, with ``changes`` ((part, argument) -> value); the last one."""
    made: dict[str, Any] = {}
    for part in parts:
        owner = getattr(importlib.import_module(part["module"]), part["cls"])
        values = dict(part["values"])
        values.update({n: v for (var, n), v in changes.items() if var == part["var"]})
        if part["style"] in ("attrs", "items"):
            obj = getattr(owner, part["method"])() if part["method"] else owner()
            for name, value in values.items():
                if part["style"] == "items":
                    obj[name] = value
                else:
                    setattr(obj, name, value)
        else:
            refs = {param: made[var] for param, var in part["refs"].items()}
            obj = owner(**refs, **values)
        made[part["var"]] = obj
    return made[parts[-1]["var"]]


def is_wrapper(cls: type) -> bool:
    """Its constructor requires a module: it wraps one (a decoder stack, a U-Net)."""
    module = sys.modules[cls.__module__]
    return any(p.default is p.empty and takes_module(p, module) for p in parameters(cls))
