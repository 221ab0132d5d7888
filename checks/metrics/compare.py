"""Pure: the numbers at base and head against the rules -> one row per metric, and what is wrong.

A rule that fails at head blocks; one that failed at base too is not this PR's doing and is a
warning (only regressions introduced by the PR block). A ruled metric that is missing, or not a
finite number, where its rule needs it is an error naming the metric and the revision.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gradgate.checks.metrics.settings import ABSOLUTE_PATTERN, RelativeRule, Rule

_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}


@dataclass(frozen=True, slots=True)
class Row:
    metric: str
    base: float | None
    head: float | None
    rule: str | None  # as the report shows it; None: a metric the config has no rule for
    passed: bool | None  # None: no rule
    failed_at_base: bool = False  # the rule failed at base as well


@dataclass(frozen=True, slots=True)
class Unusable:
    """A ruled metric that cannot be judged: missing, or not a finite number."""

    metric: str
    revision: str
    got: str | None  # the value's repr; None: missing


@dataclass(frozen=True, slots=True)
class Comparison:
    rows: tuple[Row, ...]
    unusable: tuple[Unusable, ...]


def rule_text(rule: Rule) -> str:
    if isinstance(rule, str):
        return " ".join(rule.split())
    parts = []
    if rule.max_drop is not None:
        parts.append(f"drop ≤ {rule.max_drop:g}")
    if rule.max_rise is not None:
        parts.append(f"rise ≤ {rule.max_rise:g}")
    return ", ".join(parts) + " vs base"


def holds(rule: Rule, *, base: float | None, head: float) -> bool:
    """Does ``head`` (with ``base`` for a relative rule, never None then) satisfy ``rule``?"""
    if isinstance(rule, str):
        found = re.match(ABSOLUTE_PATTERN, rule)
        assert found is not None  # the settings accepted only this shape
        bound = float(rule.strip()[len(found.group(1)) :])
        return _OPERATORS[found.group(1)](head, bound)
    assert base is not None
    if rule.max_drop is not None and base - head > rule.max_drop:
        return False
    return rule.max_rise is None or head - base <= rule.max_rise


def compare(
    base: Mapping[str, Any],
    head: Mapping[str, Any],
    rules: Mapping[str, Rule | tuple[Rule, ...]],
) -> Comparison:
    """``base`` and ``head``: metric -> a float, or ``{"not_number": repr}`` (see ``child``)."""
    rows: list[Row] = []
    unusable: list[Unusable] = []
    for metric, ruled in rules.items():
        listed = ruled if isinstance(ruled, tuple) else (ruled,)
        relative = any(isinstance(rule, RelativeRule) for rule in listed)
        head_value, head_bad = _value(head, metric, "head")
        base_value, base_bad = _value(base, metric, "base")
        if head_bad is not None:
            unusable.append(head_bad)
        if base_bad is not None and (relative or base_bad.got is not None):
            unusable.append(base_bad)  # a metric new at head may have an absolute rule
        for rule in listed:
            passed = None
            at_base = False
            if head_bad is None and (base_bad is None or not isinstance(rule, RelativeRule)):
                assert head_value is not None
                passed = holds(rule, base=base_value, head=head_value)
                at_base = base_value is not None and not holds(
                    rule, base=base_value, head=base_value
                )
            rows.append(Row(metric, base_value, head_value, rule_text(rule), passed, at_base))
    for metric in sorted(set(head) - set(rules)):
        head_value, _ = _value(head, metric, "head")
        base_value, _ = _value(base, metric, "base")
        rows.append(Row(metric, base_value, head_value, None, None))
    return Comparison(tuple(rows), tuple(unusable))


def _value(
    metrics: Mapping[str, Any], metric: str, revision: str
) -> tuple[float | None, Unusable | None]:
    if metric not in metrics:
        return None, Unusable(metric, revision, None)
    value = metrics[metric]
    if isinstance(value, float):
        return value, None
    got = value.get("not_number") if isinstance(value, dict) else None
    return None, Unusable(metric, revision, str(got if got is not None else value))
