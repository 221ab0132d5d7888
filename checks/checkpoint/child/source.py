"""What the model's source says: its own load shims, conditional keys, where a key is made.

``shims``: classes outside torch that override ``_load_from_state_dict``, and registered
load-state-dict pre/post hooks, with where they are defined, so a pass can say which of them
made an old checkpoint load (C14). ``conditional``: for a key the model lacks or has
unexpectedly, the ``if``/``try`` in the owning module's source under which it is registered
(``register_buffer("bias", ...)`` only when flash attention is missing, C5): such a key depends
on where the model was built, not on the PR. ``defined_at``: the line that creates the module
or tensor a key belongs to (``self.classifier = nn.Linear(...)``), so a finding points at code.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

_REGISTER = ("register_buffer", "register_parameter")


def _where(obj: Any) -> dict[str, Any]:
    try:
        path = inspect.getsourcefile(obj)
        _, line = inspect.getsourcelines(obj)
    except (OSError, TypeError):
        return {"file": None, "line": None}
    return {"file": path, "line": line}


def _torch_owned(obj: Any) -> bool:
    module = getattr(obj, "__module__", "") or ""
    return module == "torch" or module.startswith("torch.")


def shims(model: Any) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for prefix, module in model.named_modules():
        owner = next((k for k in type(module).__mro__ if "_load_from_state_dict" in vars(k)), None)
        if owner is not None and not _torch_owned(owner):
            name = f"{owner.__qualname__}._load_from_state_dict"
            method = vars(owner)["_load_from_state_dict"]
            found.setdefault(name, {"name": name, "module": prefix, **_where(method)})
        for table in ("_load_state_dict_pre_hooks", "_load_state_dict_post_hooks"):
            for hook in getattr(module, table, {}).values():
                function = getattr(hook, "hook", hook)  # torch wraps some in _WrappedHook
                function = getattr(function, "func", function)  # functools.partial
                name = getattr(function, "__qualname__", type(function).__name__)
                owner_module = getattr(function, "__module__", "") or ""
                label = f"{owner_module}.{name}" if _torch_owned(function) else name
                found.setdefault(label, {"name": label, "module": prefix, **_where(function)})
    return list(found.values())


def defined_at(model: Any, keys: list[str]) -> dict[str, dict[str, Any]]:
    """key -> {"file", "line"} of the statement that makes the key's module (or the tensor
    itself, for a key right under the model), in the owning class's source."""
    result = {}
    for key in keys:
        module, _, leaf = key.rpartition(".")
        owner_path, _, attr = module.rpartition(".") if module else ("", "", leaf)
        try:
            owner = model.get_submodule(owner_path) if owner_path else model
        except AttributeError:
            continue
        for cls in type(owner).__mro__:
            if _torch_owned(cls) or cls is object:
                continue
            found = _assigned(cls, attr)
            if found is not None:
                result[key] = found
                break
    return result


def _assigned(cls: Any, attr: str) -> dict[str, Any] | None:
    try:
        lines, first = inspect.getsourcelines(cls)
        path = inspect.getsourcefile(cls)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if _registers(node, attr):
            return {"file": path, "line": first + getattr(node, "lineno", 1) - 1}
    return None


def conditional(model: Any, keys: list[str]) -> dict[str, dict[str, Any]]:
    """key -> {"condition", "file", "line"} for keys registered under a condition."""
    result = {}
    for key in keys:
        owner_path, _, leaf = key.rpartition(".")
        try:
            owner = model.get_submodule(owner_path) if owner_path else model
        except AttributeError:
            continue
        for cls in type(owner).__mro__:
            if _torch_owned(cls) or cls is object:
                continue
            found = _registered_under_condition(cls, leaf)
            if found is not None:
                result[key] = found
                break
    return result


def _registered_under_condition(cls: Any, leaf: str) -> dict[str, Any] | None:
    try:
        lines, first = inspect.getsourcelines(cls)
        path = inspect.getsourcefile(cls)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node, guards in _walk(tree, []):
        if guards and _registers(node, leaf):
            guard = guards[-1]
            return {"condition": guard[0], "file": path, "line": first + guard[1] - 1}
    return None


def _walk(node: ast.AST, guards: list[tuple[str, int]]) -> Any:
    yield node, guards
    if isinstance(node, ast.If):
        test = ast.unparse(node.test)
        for statement in node.body:
            yield from _walk(statement, [*guards, (test, node.lineno)])
        for statement in node.orelse:
            yield from _walk(statement, [*guards, (f"not ({test})", node.lineno)])
        return
    if isinstance(node, ast.Try):
        for handler in node.handlers:
            caught = ast.unparse(handler.type) if handler.type is not None else "an exception"
            for statement in handler.body:
                yield from _walk(statement, [*guards, (f"except {caught}", handler.lineno)])
        for part in (node.body, node.orelse, node.finalbody):
            for statement in part:
                yield from _walk(statement, guards)
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, guards)


def _registers(node: ast.AST, leaf: str) -> bool:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _REGISTER
        and node.args
    ):
        first = node.args[0]
        return isinstance(first, ast.Constant) and first.value == leaf
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(
            isinstance(t, ast.Attribute)
            and t.attr == leaf
            and isinstance(t.value, ast.Name)
            and t.value.id == "self"
            for t in targets
        )
    return False
