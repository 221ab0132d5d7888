"""The gradient check's program: ``steps`` plain SGD steps on one revision's model, and the facts.

For every parameter: its names (tied weights have several), shape, whether it is trainable,
whether the modules that own it ran with grad on or off, whether the loss's autograd graph
reaches it, and its gradient norm at each step (None: no gradient). Plus the buffers, the
top-level modules, trainable tensors reached from the loss that are not parameters, hooks
that grow from step to step, where the model's classes are defined, and, when a step's
gradients are not finite or its backward raises, the op that did it. The parent classifies
and compares (``checks.gradient.classify``, ``checks.gradient.compare``); nothing is judged
here.

A parameter is judged over every step: zero-initialised gates (LoRA's B = 0, ReZero) have a
zero gradient at step 0 by design and learn from step 1 (scenario N5).
"""

from __future__ import annotations

import random
from typing import Any

from ...model.child import Problem, call_model, finish, prepare, variants
from ...model.child.classes import class_sources
from ...model.child.coverage import recording
from ...sandbox.child import Target, seed_libraries
from . import anomaly, graph
from .loss import BadLoss, floating_tensors, make_loss
from .watch import Watch, module_hooks, parameter_hooks

LEARNING_RATE = 1e-3  # plain SGD: enough to open a zero-initialised gate by the next step


def probe(request: dict[str, Any], target: Target) -> dict[str, Any]:
    # Which of the PR's changed lines the build and the steps ran (issue 20, point 5).
    with recording(str(request["root"]), request["kwargs"].get("coverage")) as lines:
        facts = _measure(request, target)
    if lines is not None and "problem" not in facts:
        facts["coverage"] = lines.result()
    return facts


def _measure(request: dict[str, Any], target: Target) -> dict[str, Any]:
    """The facts of the factory's model, or ``{"variants": [facts, ...]}`` for each of its
    named variants in turn (each from the same seed; ``facts["variant"]`` names it)."""
    name = None
    try:
        device = prepare(request)
        made = variants(request, target)
        found = []
        while made:  # popped, so each variant's model is freed once it is measured
            name, one = made.pop(0)
            if name is not None and request["seed"] is not None:
                seed_libraries(int(request["seed"]))
            loaded = finish(request, one, device=device, float32=True, variant=name)
            del one
            found.append(dict(_Run(loaded, device, request).facts(), variant=name))
            del loaded
    except Problem as problem:
        if name is not None:
            problem.details.setdefault("variant", name)
        return problem.as_json()
    return found[0] if found[0]["variant"] is None else {"variants": found}


class _Run:
    def __init__(self, loaded: Any, device: Any, request: dict[str, Any]) -> None:
        self.loaded = loaded
        self.model = loaded.model
        self.device = device
        self.root = str(request["root"])
        self.steps = int(request["kwargs"]["gradient"]["steps"])
        named = list(self.model.named_parameters(remove_duplicate=False))
        self.params: list[Any] = []
        self.names: dict[int, list[str]] = {}
        for name, param in named:
            if id(param) not in self.names:
                self.params.append(param)
                self.names[id(param)] = []
            self.names[id(param)].append(name)
        self.registered = {id(p) for p in self.params}
        self.inputs = {id(t) for t in _tensors((loaded.args, loaded.kwargs))}

    def facts(self) -> dict[str, Any]:
        import torch

        norms: list[list[float | None]] = []
        steps: list[dict[str, Any]] = []
        reachable: set[int] = set()
        unregistered: dict[int, Any] = {}
        param_hooks: list[list[int]] = []
        mod_hooks: list[dict[str, int]] = []
        failure = None
        with Watch(self.params) as watch:
            for _ in range(self.steps):
                state = _rng_state(self.device)
                before = list(watch.accumulated)
                for param in self.params:
                    param.grad = None
                outputs = call_model(self.loaded)
                loss = self._loss(outputs)
                floating = floating_tensors(outputs)
                step: dict[str, Any] = {
                    "outputs": len(floating),
                    "outputs_with_grad": sum(1 for t in floating if t.requires_grad),
                    "loss_with_grad": loss is not None and loss.requires_grad,
                    "loss": None if loss is None else float(loss.detach()),
                }
                del outputs, floating
                if step["loss_with_grad"]:
                    for leaf in graph.leaves(loss):
                        if id(leaf) in self.registered:
                            reachable.add(id(leaf))
                        elif leaf.requires_grad and id(leaf) not in self.inputs:
                            unregistered[id(leaf)] = leaf
                    try:
                        loss.backward()
                    except Exception as exc:  # scenario G14: re-run it to name the op, then stop
                        failure = {"step": len(steps), "kind": "backward"}
                        failure.update(self._locate(state))
                        failure["message"] = f"{type(exc).__name__}: {exc}"
                        steps.append(step)
                        break
                del loss
                received = [a > b for a, b in zip(watch.accumulated, before)]
                norms.append(self._norms(received))
                steps.append(step)
                param_hooks.append([parameter_hooks(p) for p in self.params])
                mod_hooks.append({n: module_hooks(m) for n, m in self.model.named_modules()})
                if any(n is not None and not _finite(n) for n in norms[-1]):
                    failure = {"step": len(steps) - 1, "kind": "non-finite"}
                    failure.update(self._locate(state))
                    break
                with torch.no_grad():
                    for param in self.params:
                        if param.grad is not None:
                            param.add_(param.grad, alpha=-LEARNING_RATE)
        return {
            "torch": torch.__version__,
            "device": str(self.device),
            "inputs_from": self.loaded.inputs_from,
            "loss": "user" if self.loaded.loss is not None else "projection",
            "steps": steps,
            "parameters": self._parameters(watch, reachable, norms, param_hooks),
            "buffers": [name for name, _ in self.model.named_buffers()],
            "top_modules": [name for name, _ in self.model.named_children()],
            "unregistered": self._unregistered(unregistered, watch),
            "module_hooks": _grown(mod_hooks),
            "sources": class_sources(self.model, self.root),
            "failure": failure,
        }

    def _loss(self, outputs: Any) -> Any:
        try:
            return make_loss(outputs, self.loaded.loss, device=self.device)
        except BadLoss as bad:
            raise Problem("bad-loss-value", got=bad.got) from None

    def _norms(self, received: list[bool]) -> list[float | None]:
        """Each parameter's gradient norm at this step; None where autograd accumulated no
        gradient into it (its post-accumulate-grad hook did not fire)."""
        import torch

        grads = [p.grad if got else None for p, got in zip(self.params, received)]
        present = [g.detach() for g in grads if g is not None]
        values = (
            torch.stack([torch.linalg.vector_norm(g, dtype=torch.float32) for g in present])
            .cpu()
            .tolist()
            if present
            else []
        )  # one transfer for all of them, not one per parameter
        found = iter(values)
        return [None if g is None else next(found) for g in grads]

    def _locate(self, state: Any) -> dict[str, Any]:
        def step() -> None:
            for param in self.params:
                param.grad = None
            _set_rng_state(self.device, state)
            loss = self._loss(call_model(self.loaded))
            if loss is not None and loss.requires_grad:
                loss.backward()

        return anomaly.locate(step, root=self.root)

    def _parameters(
        self,
        watch: Watch,
        reachable: set[int],
        norms: list[list[float | None]],
        hooks: list[list[int]],
    ) -> list[dict[str, Any]]:
        owners: dict[int, list[int]] = {}
        for module in self.model.modules():
            for param in module._parameters.values():
                if param is not None:
                    owners.setdefault(id(param), []).append(id(module))
        out = []
        for index, param in enumerate(self.params):
            mine = owners.get(id(param), [])
            out.append(
                {
                    "names": self.names[id(param)],
                    "shape": list(param.shape),
                    "numel": param.numel(),
                    "trainable": bool(param.requires_grad),
                    "ran_with_grad": any(watch.with_grad.get(m) for m in mine),
                    "ran_without_grad": any(watch.without_grad.get(m) for m in mine),
                    "reachable": id(param) in reachable,
                    "norms": [step[index] for step in norms],
                    "hooks": [step[index] for step in hooks],
                }
            )
        return out

    def _unregistered(self, tensors: dict[int, Any], watch: Watch) -> list[dict[str, Any]]:
        if not tensors:
            return []
        names = graph.unregistered_names(self.model, watch.modules)
        return [
            {"name": names.get(key), "shape": list(tensor.shape)} for key, tensor in tensors.items()
        ]


def _grown(counts: list[dict[str, int]]) -> list[dict[str, Any]]:
    """Modules whose hook count grew after the first step (hooks added in forward)."""
    if len(counts) < 2:
        return []
    first, last = counts[0], counts[-1]
    return [
        {"name": name, "counts": [step.get(name, 0) for step in counts]}
        for name in last
        if last[name] > first.get(name, 0)
    ]


def _tensors(value: Any) -> list[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item)]
    return []


def _finite(value: float) -> bool:
    return value == value and value not in (float("inf"), float("-inf"))


def _rng_state(device: Any) -> Any:
    import torch

    cuda = torch.cuda.get_rng_state_all() if device.type == "cuda" else None
    return random.getstate(), torch.get_rng_state(), cuda


def _set_rng_state(device: Any, state: Any) -> None:
    import torch

    random.setstate(state[0])
    torch.set_rng_state(state[1])
    if state[2] is not None:
        torch.cuda.set_rng_state_all(state[2])
