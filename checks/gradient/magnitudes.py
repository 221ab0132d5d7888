"""Which modules a gradient-norm change is in, with their norms at base and at head (pure).

A warning that the norm is "between 16x and 64x smaller" is only actionable with the modules it
is about (issue 20): a module's norm is that of all its parameters together, at the first step
(the same seed and batch at both revisions), and the modules that moved most are named.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gradgate.checks.gradient.compare import Comparison

TOP = 5


def module_of(name: str) -> str:
    return name.rpartition(".")[0] or "(the model)"


def norms(c: Comparison, members: Sequence[str]) -> list[tuple[str, float, float]]:
    """(module, base norm, head norm) at the first step, the largest change first."""
    base_by, head_by = c.base.by_name(), c.head.by_name()
    sums: dict[str, list[float]] = {}
    for name in members:
        old, new = base_by.get(name), head_by.get(name)
        if old is None or new is None or not old.norms or not new.norms:
            continue
        total = sums.setdefault(module_of(name), [0.0, 0.0])
        total[0] += (old.norms[0] or 0.0) ** 2
        total[1] += (new.norms[0] or 0.0) ** 2
    rows = [(m, math.sqrt(a), math.sqrt(b)) for m, (a, b) in sums.items()]
    rows = [r for r in rows if r[1] > 0 and r[2] > 0 and math.isfinite(r[1] * r[2])]
    return sorted(rows, key=lambda r: -abs(math.log(r[2] / r[1])))


def magnitudes(c: Comparison, members: Sequence[str]) -> str:
    """ "Gradient norm at the first step, base → head: `aux.proj` 0.31 → 0.0042 (74× smaller),
    ... and 3 more modules." """
    rows = norms(c, members)
    if not rows:
        return ""
    shown = ", ".join(f"`{m}` {a:.3g} → {b:.3g} ({_factor(b / a)})" for m, a, b in rows[:TOP])
    more = f", and {len(rows) - TOP} more modules" if len(rows) > TOP else ""
    return f"Gradient norm at the first step, base → head: {shown}{more}."


def _factor(ratio: float) -> str:
    return f"{1 / ratio:.3g}× smaller" if ratio < 1 else f"{ratio:.3g}× larger"
