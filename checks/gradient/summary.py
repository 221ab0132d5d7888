"""What the PR did to the model, like a plan, and the gradient-norm chart's data (pure).

Both go into the check result's ``extra`` (JSON values) for the report templates to render:
``bot/templates/checks/gradient.*.j2`` draw the summary and a Mermaid xychart of the gradient
norm per top-level module, base against head.
"""

from __future__ import annotations

import math
from typing import Any

from gradgate.checks.gradient.compare import Comparison
from gradgate.checks.gradient.facts import RevisionFacts

ROOT_MODULE = "(model)"  # the chart's name for parameters that sit on the model itself
MAX_BARS = 30


def model_summary(c: Comparison) -> dict[str, Any]:
    def numel(facts: RevisionFacts, trainable: bool) -> int:
        return sum(p.numel for p in facts.params if p.trainable is trainable)

    base_shapes = {n: p.shape for p in c.base.params for n in p.names}
    shapes = [
        {"name": name, "base": list(base_shapes[name]), "head": list(p.shape)}
        for p in c.head.params
        for name in p.names[:1]
        if name in base_shapes and base_shapes[name] != p.shape
    ]
    return {
        "trainable": [numel(c.base, True), numel(c.head, True)],
        "frozen": [numel(c.base, False), numel(c.head, False)],
        "tensors": [len(c.base.params), len(c.head.params)],
        "modules_added": [m for m in c.head.top_modules if m not in c.base.top_modules],
        "modules_removed": [m for m in c.base.top_modules if m not in c.head.top_modules],
        "shapes": shapes,
        "device": c.head.device,
        "torch": c.head.torch,
        "loss": c.head.loss,
        "steps": len(c.head.steps),
    }


def norms_by_module(facts: RevisionFacts) -> dict[str, float]:
    """Top-level module -> the norm of its parameters' gradients at the first step."""
    squares: dict[str, float] = {}
    for param in facts.params:
        top = param.name.split(".")[0] if "." in param.name else ROOT_MODULE
        norm = param.norms[0] if param.norms else None
        if norm is not None and math.isfinite(norm):
            squares[top] = squares.get(top, 0.0) + norm * norm
        else:
            squares.setdefault(top, 0.0)
    return {top: math.sqrt(total) for top, total in squares.items()}


def chart(c: Comparison) -> dict[str, Any]:
    """log10 of each top-level module's gradient norm at base and head; a module with no
    gradient (or absent at that revision) sits at the axis floor."""
    base, head = norms_by_module(c.base), norms_by_module(c.head)
    modules = list(dict.fromkeys([*base, *head]))[:MAX_BARS]
    logs = [math.log10(v) for v in (*base.values(), *head.values()) if v > 0]
    low = math.floor(min(logs, default=-1.0)) - 1
    high = math.ceil(max(logs, default=0.0))

    def series(norms: dict[str, float]) -> list[float]:
        return [round(math.log10(norms[m]), 3) if norms.get(m) else low for m in modules]

    return {
        "modules": modules,
        "base": series(base),
        "head": series(head),
        "base_norms": [base.get(m) for m in modules],
        "head_norms": [head.get(m) for m in modules],
        "y_min": low,
        "y_max": max(high, low + 1),
    }
