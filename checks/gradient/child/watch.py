"""What happens while the model runs: modules called (and in which grad mode), gradient
accumulations per parameter, and hooks that pile up from step to step.

A global forward hook sees every module call, including modules the model does not register
(a plain list of layers) and calls repeated by activation checkpointing (N7: counted, never a
finding). Gradients are counted with post-accumulate-grad hooks on the parameters: full
backward hooks on modules would break in-place ops in user code.
"""

from __future__ import annotations

from typing import Any

_MODULE_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


class Watch:
    """Install with ``with Watch(params) as watch:``; read the counts after each step."""

    def __init__(self, params: list[Any]) -> None:
        self.params = params
        self.with_grad: dict[int, int] = {}  # id(module) -> calls with grad enabled
        self.without_grad: dict[int, int] = {}  # id(module) -> calls under no_grad / inference
        self.modules: dict[int, Any] = {}  # keeps every called module alive, so ids stay unique
        self.accumulated = [0] * len(params)
        self._handles: list[Any] = []

    def __enter__(self) -> Watch:
        import torch

        self._handles.append(torch.nn.modules.module.register_module_forward_hook(self._called))
        for index, param in enumerate(self.params):
            if param.requires_grad:  # torch refuses hooks on frozen parameters
                hook = param.register_post_accumulate_grad_hook(self._counter(index))
                self._handles.append(hook)
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def _called(self, module: Any, args: Any, output: Any) -> None:
        import torch

        grad = torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
        counts = self.with_grad if grad else self.without_grad
        counts[id(module)] = counts.get(id(module), 0) + 1
        self.modules[id(module)] = module

    def _counter(self, index: int) -> Any:
        def count(param: Any) -> None:
            self.accumulated[index] += 1

        return count


def parameter_hooks(param: Any) -> int:
    """Hooks registered on a parameter with ``register_hook`` (one grows per step when the call
    sits in ``forward``: scenario G7)."""
    hooks = getattr(param, "_backward_hooks", None)
    return len(hooks) if hooks else 0


def module_hooks(module: Any) -> int:
    return sum(len(getattr(module, name, None) or ()) for name in _MODULE_HOOKS)
