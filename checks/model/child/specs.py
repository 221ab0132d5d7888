"""Hydra-style ``_target_`` specs -> objects, for a model and inputs given without Python."""

from __future__ import annotations

import importlib
from typing import Any

from ...sandbox.child import ImportFailed, Missing

TARGET_KEY = "_target_"
ARGS_KEY = "_args_"


def instantiate(node: Any) -> Any:
    """A Hydra-style spec -> the object: each ``_target_`` called with its built arguments."""
    if isinstance(node, list):
        return [instantiate(item) for item in node]
    if not isinstance(node, dict):
        return node
    if TARGET_KEY not in node:
        return {key: instantiate(value) for key, value in node.items()}
    function = locate(node[TARGET_KEY])
    args = [instantiate(item) for item in node.get(ARGS_KEY, [])]
    kwargs = {k: instantiate(v) for k, v in node.items() if k not in (TARGET_KEY, ARGS_KEY)}
    return function(*args, **kwargs)


def locate(dotted: str) -> Any:
    """``package.module.Name`` or ``package.module.Class.method`` -> the object.

    The longest importable module prefix wins; what is left is looked up as attributes.
    """
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            # This prefix is not a module: try a shorter one. Anything else that is missing
            # (a dependency the module imports) is the module failing to import.
            if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
                continue
            raise ImportFailed(exc) from exc
        except Exception as exc:
            raise ImportFailed(exc) from exc
        for attr in parts[cut:]:
            try:
                obj = getattr(obj, attr)
            except AttributeError:
                raise Missing("attribute", attr) from None
        return obj
    raise Missing("module", parts[0])
