"""Inside the sandbox child: the user's function, imported on demand, and the default program.

``target`` is the user's ``package.module:function`` or ``path/to/file.py:function``
(:class:`Target`); ``_target_`` specs name classes by dotted path (:func:`import_object`).
A missing module, file or name is :class:`Missing`; user code raising while it is imported is
:class:`ImportFailed`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from typing import Any

from .errors import ImportFailed, Missing


class Target:
    """The user's ``module:function`` or ``file.py:function``; imported on first ``load()``."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.module: str | None = request.get("module")
        self.path: str | None = request.get("path")
        self.attr: str | None = request.get("attr")

    def load(self) -> Callable[..., Any]:
        if self.attr is None:
            raise Missing("callable", "(no target given)")
        try:
            obj = _load_module(self.module, self.path)
        except Missing:
            raise
        except Exception as exc:
            raise ImportFailed(exc) from exc
        for part in self.attr.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise Missing("attribute", part) from None
        if not callable(obj):
            raise Missing("callable", self.attr)
        return obj  # type: ignore[no-any-return]


def import_object(dotted: str) -> Any:
    """``package.module.Name`` -> the object, for ``_target_`` specs; import errors are Missing
    (the module or name is not there) or ImportFailed (user code raised while importing)."""
    module_name, _, name = dotted.rpartition(".")
    if not module_name:
        raise Missing("module", dotted)
    try:
        module = _load_module(module_name, None)
    except Missing:
        raise
    except Exception as exc:
        raise ImportFailed(exc) from exc
    try:
        return getattr(module, name)
    except AttributeError:
        raise Missing("attribute", name) from None


def _load_module(name: str | None, path: str | None) -> Any:
    if path is not None:
        if not os.path.isfile(path):
            raise Missing("file", path)
        # Like `python path/to/file.py`: the file's directory is importable, after the root.
        sys.path.insert(1, os.path.dirname(path))
        spec = importlib.util.spec_from_file_location("__gradgate_entry__", path)
        if spec is None or spec.loader is None:
            raise Missing("file", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses and pickle look the module up here
        spec.loader.exec_module(module)
        return module
    assert name is not None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        # Missing target vs. the target importing a dependency that is not installed.
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise Missing("module", exc.name) from None
        raise


def seed_libraries(seed: int) -> None:
    """Seed numpy and torch if user code already imported them.

    Importing torch here would cost every child seconds; torch imported later, inside the
    function, starts from torch's own fixed default seed, the same in every fresh process.
    """
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)  # seeds every CUDA device as well


def call_target(request: dict[str, Any], target: Target) -> Any:
    """The default program: call the user's function with the request's ``kwargs``."""
    function = target.load()
    if request["seed"] is not None:
        seed_libraries(request["seed"])
    return function(**request["kwargs"])
