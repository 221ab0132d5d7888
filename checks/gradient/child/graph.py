"""The autograd graph from the loss back to its leaves, and naming leaves the model does not
register as parameters (scenario G5: layers kept in a plain list)."""

from __future__ import annotations

from typing import Any


def leaves(loss: Any) -> list[Any]:
    """The tensors whose ``AccumulateGrad`` nodes the loss reaches (parameters, and any other
    leaf that requires grad)."""
    found: list[Any] = []
    seen: dict[int, Any] = {}  # node id -> node, kept alive so that ids are not reused
    stack = [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        variable = getattr(node, "variable", None)
        if variable is not None:
            found.append(variable)
            continue
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


def unregistered_names(model: Any, modules: dict[int, Any]) -> dict[int, str]:
    """id(tensor) -> a name for trainable tensors the model holds outside its parameters:
    in plain lists, tuples or dicts of modules or tensors, or as plain tensor attributes.
    ``modules``: modules seen running (a list's layers run without being registered)."""
    import torch

    names: dict[int, str] = {}

    def add_module(prefix: str, module: Any) -> None:
        for name, param in module.named_parameters():
            names.setdefault(id(param), f"{prefix}.{name}")

    for owner_name, owner in model.named_modules():
        prefix = f"{owner_name}." if owner_name else ""
        for attr, value in vars(owner).items():
            if attr.startswith("_"):
                continue
            items: list[tuple[str, Any]] = []
            if isinstance(value, (list, tuple)):
                items = [(f"{prefix}{attr}[{i}]", item) for i, item in enumerate(value)]
            elif isinstance(value, dict):
                items = [(f"{prefix}{attr}[{key!r}]", item) for key, item in value.items()]
            elif isinstance(value, torch.Tensor):
                items = [(f"{prefix}{attr}", value)]
            for name, item in items:
                if isinstance(item, torch.nn.Module):
                    add_module(name, item)
                elif isinstance(item, torch.Tensor):
                    names.setdefault(id(item), name)
    registered = {id(m) for m in model.modules()}
    for module in modules.values():
        if id(module) not in registered:
            add_module(f"<unregistered {type(module).__name__}>", module)
    return names
