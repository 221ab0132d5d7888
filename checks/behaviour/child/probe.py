"""The behaviour check's programs, one per revision: ``base`` and ``head``, for every variant.

Both build each variant from the check's seed and probe the invariants on it as built
(``invariants``). ``base`` then records, from the weights it built, what the model does: an
eval-mode forward with every module's inputs and outputs (``trace``), the train-mode loss and
every parameter's gradient, and the eval outputs and buffers after two plain SGD steps; all of
it, with the weights, goes to one file in its exchange, which the parent hands over to head's
child. ``head`` reads that file, compares its own weights as
built with base's (the initialisation), loads base's weights (``load_weights``, as the
checkpoint check loads them) and does the same runs, comparing each with base's. Every forward
at both revisions starts from the same random state: a model that draws random numbers in its
forward draws the same ones at base and head. Nothing is judged here; the parent words it.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import torch

from ...checkpoint.child.equivalence import load_weights
from ...gradient.child.loss import BadLoss, make_loss
from ...model.child import Loaded, Problem, finish, prepare, variants
from ...model.child.classes import class_sources, code_source
from ...model.child.serve import exchange_file
from ...sandbox.child import Target, seed_libraries
from . import invariants
from .trace import Recorder, compare_lists, difference, first_difference, loaded, saved, tensors

LEARNING_RATE = 1e-3
STEPS = 2
DEFAULT = "default"  # the settings' name for a factory's one model


def base(request: dict[str, Any], target: Target) -> dict[str, Any]:
    return _each_variant(request, target, head=False)


def head(request: dict[str, Any], target: Target) -> dict[str, Any]:
    return _each_variant(request, target, head=True)


def _each_variant(request: dict[str, Any], target: Target, *, head: bool) -> dict[str, Any]:
    settings = request["kwargs"]["behaviour"]
    seed = int(settings["seed"])
    name = None
    found = []
    records: dict[str, Any] = {}
    base_records: dict[str, Any] = {}
    try:
        device = prepare(request)
        if head and settings.get("path"):
            base_records = torch.load(settings["path"], weights_only=True, map_location="cpu")
        made = variants(request, target)
        while made:  # popped, so each variant's model is freed once it is probed
            name, one = made.pop(0)
            _seed(seed)
            model = finish(request, one, device=device, float32=True, variant=name)
            del one
            key = name or DEFAULT
            probe = _Probe(model, device, settings, settings["variants"].get(key) or {})
            facts: dict[str, Any] = {"variant": name, "invariants": probe.invariants()}
            if head:
                facts["classes"] = class_sources(model.model, str(request["root"]))
                facts["loss_source"] = _loss_source(model, str(request["root"]))
                facts["same"] = probe.against(base_records.get(key))
            else:
                records[key] = probe.record()
            found.append(facts)
            del model, probe
        if not head and settings.get("file"):  # the parent takes it out for head's child
            torch.save(records, exchange_file(request, settings["file"]))
    except Problem as problem:
        if name is not None:
            problem.details.setdefault("variant", name)
        return problem.as_json()
    return {"variants": found}


def _seed(seed: int) -> None:
    random.seed(seed)
    seed_libraries(seed)


def _loss_source(model: Loaded, root: str) -> Any:
    loss = model.loss
    if loss is None:
        return None
    return code_source(getattr(loss, "__func__", loss), root)


class _Probe:
    def __init__(self, loaded_model: Loaded, device: Any, settings: dict[str, Any],
                 own: dict[str, Any]) -> None:  # fmt: skip
        self.loaded = loaded_model
        self.model = loaded_model.model
        self.device = device
        self.seed = int(settings["seed"])
        self.rtol = float(settings["rtol"])
        self.max_parameters = int(settings["max_parameters"])
        self.skip = set(own.get("skip") or ())
        self.dim = int(own.get("sequence_dim") or 1)
        # Weights and buffers as built: each probe starts from them.
        self.built = {k: v.detach().clone() for k, v in self.model.state_dict().items()}

    def call(self, args: Any, kwargs: Any, seed: int) -> Any:
        _seed(seed)
        return self.model(*args, **kwargs)

    def forward(self, seed: int) -> Any:
        return self.call(self.loaded.args, self.loaded.kwargs, seed)

    def restore(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state, strict=False)
        self.model.zero_grad(set_to_none=True)

    def invariants(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        probes: dict[str, Callable[[], dict[str, Any]]] = {
            "eval-random": lambda: invariants.random_eval(
                self.model, self.forward, seed=self.seed, rtol=self.rtol
            ),
            "eval-state": lambda: invariants.eval_state(self.model, self.forward, seed=self.seed),
            "causality": lambda: invariants.causality(
                self.model,
                self.call,
                self.loaded.args,
                self.loaded.kwargs,
                dim=self.dim,
                seed=self.seed,
                rtol=self.rtol,
            ),
        }
        for name, run in probes.items():
            if name in self.skip:
                found[name] = {"holds": None, "why": "skipped"}
                continue
            try:
                found[name] = run()
            except Exception as exc:  # the model cannot run this probe: it does not apply
                found[name] = {"holds": None, "why": "raised", "error": _short(exc)}
            self.restore(self.built)
        return found

    def _too_large(self) -> bool:
        count: int = sum(p.numel() for p in self.model.parameters())
        return count > self.max_parameters

    # -- base: what the model does with its own weights ---------------------------------------

    def record(self) -> dict[str, Any]:
        if "same-weights" in self.skip or self._too_large():
            return {"skipped": True}
        runs = self.runs(self.built)
        return dict(runs, state={k: v.cpu() for k, v in self.built.items()},
                    trace=saved(runs.pop("trace")))  # fmt: skip

    def runs(self, weights: dict[str, Any]) -> dict[str, Any]:
        """The same-weights runs, each from ``weights``: the eval outputs and every module's
        inputs and outputs, the train-mode loss and gradients (and backward's order), the eval
        outputs and buffers after the training steps."""
        self.restore(weights)
        outputs, calls = self._eval()
        self.restore(weights)
        loss, grads, order = self._train()
        self.restore(weights)
        after, buffers = self._steps()
        self.restore(self.built)
        return {"outputs": outputs, "trace": calls, "loss": loss, "grads": grads,
                "order": order, "after": after, "buffers": buffers}  # fmt: skip

    def _eval(self) -> tuple[list[Any], Any]:
        self.model.eval()
        with torch.no_grad(), Recorder(self.model) as recorder:
            outputs = [t.detach().cpu() for t in tensors(self.forward(self.seed))]
        return outputs, recorder.calls

    def _train(self) -> tuple[float | None, dict[str, Any], list[str]]:
        """The train-mode loss at the seed, each parameter's gradient, and the order in which
        backward reached them (the first name of tied parameters)."""
        self.model.train()
        self.model.zero_grad(set_to_none=True)
        names = _parameter_names(self.model)
        order: list[str] = []
        handles = []
        for name, param in names.items():
            hook = getattr(param, "register_post_accumulate_grad_hook", None)
            if hook is not None and param.requires_grad:
                handles.append(hook(lambda _p, name=name: order.append(name)))
        try:
            loss = self._loss(self.forward(self.seed))
            if loss is None:
                return None, {}, []
            if loss.requires_grad:
                loss.backward()
        finally:
            for handle in handles:
                handle.remove()
        grads = {
            name: None if p.grad is None else p.grad.detach().cpu().clone()
            for name, p in names.items()
        }
        if not handles:  # an old torch: backward reaches the last-registered first, mostly
            order = list(reversed(names))
        return float(loss.detach()), grads, order

    def _loss(self, outputs: Any) -> Any:
        try:
            return make_loss(outputs, self.loaded.loss, device=self.device)
        except BadLoss as bad:
            raise Problem("bad-loss-value", got=bad.got) from None

    def _steps(self) -> tuple[list[Any], dict[str, Any]]:
        """Eval outputs and buffers after ``STEPS`` plain SGD steps, each from the seed."""
        for step in range(STEPS):
            self.model.train()
            self.model.zero_grad(set_to_none=True)
            loss = self._loss(self.forward(self.seed + step))
            if loss is None or not loss.requires_grad:
                break
            loss.backward()
            with torch.no_grad():
                for param in self.model.parameters():
                    if param.grad is not None:
                        param.sub_(LEARNING_RATE * param.grad)
        outputs, _ = self._eval()
        buffers = {k: v.detach().cpu().clone() for k, v in self.model.named_buffers()}
        return outputs, buffers

    # -- head: the same runs from base's weights, compared --------------------------------------

    def against(self, recorded: Any) -> dict[str, Any]:
        if "same-weights" in self.skip:
            return {"compared": False, "why": "skipped"}
        if recorded is None:
            return {"compared": False, "why": "no-base"}
        if recorded.get("skipped") or self._too_large():
            return {"compared": False, "why": "too-large"}
        state = recorded["state"]
        init = self._init(state)
        refused = load_weights(self.model, state, migrations=[])
        if refused is not None:
            return dict(refused, why="not-loaded", init=init)
        weights = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        try:
            runs = self.runs(weights)
        except Problem:
            raise
        except Exception as exc:  # base's inputs no longer run: the checkpoint check says so
            return {"compared": False, "why": "raised", "error": _short(exc), "init": init}
        rtol = self.rtol
        result: dict[str, Any] = {"compared": True, "init": init}
        result["outputs"] = compare_lists(recorded["outputs"], runs["outputs"], rtol)
        result["first"] = first_difference(loaded(recorded["trace"]), runs["trace"], rtol)
        result["loss"] = {
            "base": recorded["loss"],
            "head": runs["loss"],
            "equal": _same_number(recorded["loss"], runs["loss"], rtol),
        }
        result["gradients"] = _gradients(recorded["grads"], runs["grads"], runs["order"], rtol)
        result["after"] = compare_lists(recorded["after"], runs["after"], rtol)
        result["buffers"] = _buffers(recorded["buffers"], runs["buffers"], rtol)
        return result

    def _init(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """The floating tensors whose values as built differ from base's, with both statistics."""
        changed = []
        for name, mine in self.built.items():
            theirs = state.get(name)
            if theirs is None or not mine.is_floating_point() or mine.shape != theirs.shape:
                continue
            mine = mine.detach().cpu()
            found = difference(theirs.to(mine.dtype), mine)
            if found is not None and found[0] > self.rtol * found[1]:
                changed.append({"name": name, "base": _stats(theirs), "head": _stats(mine)})
        return changed


def _parameter_names(model: Any) -> dict[str, Any]:
    names: dict[str, Any] = {}
    seen: set[int] = set()
    for name, param in model.named_parameters():
        if id(param) not in seen:
            seen.add(id(param))
            names[name] = param
    return names


def _gradients(base: dict[str, Any], head: dict[str, Any], order: list[str], rtol: float) -> Any:
    """The parameters whose gradients differ, the first in backward order first."""
    ranked = list(dict.fromkeys([*order, *head]))
    differ: list[dict[str, Any]] = []
    for name in ranked:
        if name not in base or name not in head:
            continue
        want, got = base[name], head[name]
        if want is None or got is None:
            if (want is None) != (got is None):
                differ.append({"parameter": name, "missing": "base" if want is None else "head"})
            continue
        found = difference(want, got)
        if found is None or found[0] > rtol * found[1]:
            differ.append({"parameter": name, "diff": None if found is None else found[0],
                           "scale": None if found is None else found[1]})  # fmt: skip
    return {"equal": not differ, "differ": differ[:20], "count": len(differ)}


def _buffers(base: dict[str, Any], head: dict[str, Any], rtol: float) -> list[dict[str, Any]]:
    differ = []
    for name, want in base.items():
        got = head.get(name)
        if got is None:
            continue
        found = difference(want, got)
        if found is None or found[0] > rtol * found[1]:
            differ.append({"name": name, "diff": None if found is None else found[0],
                           "scale": None if found is None else found[1]})  # fmt: skip
    return differ


def _same_number(a: float | None, b: float | None, rtol: float) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rtol * max(abs(a), abs(b), 1e-30)


def _stats(tensor: Any) -> list[float]:
    value = tensor.detach().double()
    return [float(value.mean()), float(value.std()) if value.numel() > 1 else 0.0]


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:1000]
