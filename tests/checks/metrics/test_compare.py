"""The metrics check's judgement of numbers it was given (pure): each rule's bound, exactly at
the line and past it, a rule already failing at base, and the metrics that cannot be judged."""

from __future__ import annotations

from typing import Any

import pytest
from gradgate.checks.base import CheckResult, Outcome
from gradgate.checks.metrics.check import judge
from gradgate.checks.metrics.compare import Row, compare
from gradgate.checks.metrics.settings import RelativeRule, Rule


def judged(
    base: dict[str, Any], head: dict[str, Any], rules: dict[str, Rule | tuple[Rule, ...]]
) -> CheckResult:
    return judge(compare(base, head, rules))


@pytest.mark.parametrize(
    ("rule", "holding", "failing"),
    [
        (">= 0.75", 0.75, 0.5),
        ("<= 200", 200.0, 200.5),
        ("> 0.5", 0.75, 0.5),
        ("< 1", 0.5, 1.0),
        ("== 3", 3.0, 3.5),
        ("  <=   1e2 ", 100.0, 100.5),
        ("<= -0.5", -0.5, -0.25),
    ],
)
def test_an_absolute_rule_holds_at_its_bound_and_blocks_past_it(
    rule: str, holding: float, failing: float
) -> None:
    shown = " ".join(rule.split())
    fine = compare({"m": holding}, {"m": holding}, {"m": rule})
    assert fine.rows == (Row("m", holding, holding, shown, True, False),)
    result = judged({"m": holding}, {"m": failing}, {"m": rule})
    assert result.outcome is Outcome.FAIL
    (finding,) = result.findings
    assert finding.message == f"`m` fails its rule `{shown}` at head (it held at base)"
    assert result.summary == "1 of 1 metric rules fail at head"


@pytest.mark.parametrize(
    ("rule", "shown", "head", "passed"),
    [
        (RelativeRule(max_drop=0.25), "drop ≤ 0.25 vs base", 0.75, True),
        (RelativeRule(max_drop=0.25), "drop ≤ 0.25 vs base", 0.5, False),
        (RelativeRule(max_drop=0.25), "drop ≤ 0.25 vs base", 9.0, True),  # a rise is fine
        (RelativeRule(max_rise=0.5), "rise ≤ 0.5 vs base", 1.5, True),
        (RelativeRule(max_rise=0.5), "rise ≤ 0.5 vs base", 1.75, False),
        (RelativeRule(max_rise=0.5), "rise ≤ 0.5 vs base", -9.0, True),  # a drop is fine
        (RelativeRule(max_drop=0.25, max_rise=0.5), "drop ≤ 0.25, rise ≤ 0.5 vs base", 0.5, False),
        (RelativeRule(max_drop=0.25, max_rise=0.5), "drop ≤ 0.25, rise ≤ 0.5 vs base", 1.75, False),
        (RelativeRule(max_drop=0.25, max_rise=0.5), "drop ≤ 0.25, rise ≤ 0.5 vs base", 1.5, True),
    ],
)
def test_a_relative_rule_bounds_the_change_from_base(
    rule: RelativeRule, shown: str, head: float, passed: bool
) -> None:
    comparison = compare({"m": 1.0}, {"m": head}, {"m": rule})
    assert comparison.rows == (Row("m", 1.0, head, shown, passed, False),)
    assert comparison.unusable == ()


def test_a_rule_that_already_failed_at_base_warns_and_one_new_at_head_blocks() -> None:
    rules: dict[str, Rule | tuple[Rule, ...]] = {"acc": ">= 0.75", "loss": "<= 1"}
    result = judged({"acc": 0.5, "loss": 0.5}, {"acc": 0.5, "loss": 2.0}, rules)
    assert [(f.severity, f.message) for f in result.findings] == [
        ("blocking", "`loss` fails its rule `<= 1` at head (it held at base)"),
        ("warning", "`acc` fails its rule `>= 0.75` at head, as it already did at base"),
    ]
    assert result.outcome is Outcome.FAIL
    assert result.summary == "1 of 2 metric rules fail at head"
    warned = judged({"acc": 0.5}, {"acc": 0.5}, {"acc": ">= 0.75"})
    assert warned.outcome is Outcome.WARN
    assert warned.summary == "all 1 metric rules hold at head"


def test_each_of_a_metrics_rules_is_a_row_and_unruled_metrics_are_listed_after() -> None:
    rules: dict[str, Rule | tuple[Rule, ...]] = {"acc": (">= 0.5", RelativeRule(max_drop=0.125))}
    comparison = compare(
        {"acc": 1.0, "zeta": 2.0, "gone": 1.0},
        {"acc": 0.75, "zeta": 3.0, "alpha": 4.0},
        rules,
    )
    assert comparison.rows == (
        Row("acc", 1.0, 0.75, ">= 0.5", True, False),
        Row("acc", 1.0, 0.75, "drop ≤ 0.125 vs base", False, False),
        Row("alpha", None, 4.0, None, None),
        Row("zeta", 2.0, 3.0, None, None),
    )
    result = judge(comparison)
    assert result.summary == "1 of 2 metric rules fail at head"
    assert result.metrics == {"acc_head": 0.75, "alpha_head": 4.0, "zeta_head": 3.0}
    assert result.extra["rows"][2] == {
        "metric": "alpha",
        "base": None,
        "head": 4.0,
        "rule": None,
        "passed": None,
        "failed_at_base": False,  # no rule, so none failed at base
    }


def test_a_metric_new_at_head_meets_an_absolute_rule_but_not_a_relative_one() -> None:
    fine = compare({}, {"acc": 0.75}, {"acc": ">= 0.5"})
    assert fine.rows == (Row("acc", None, 0.75, ">= 0.5", True, False),)
    assert fine.unusable == ()
    result = judged({}, {"acc": 0.75}, {"acc": RelativeRule(max_drop=0.125)})
    assert result.outcome is Outcome.ERROR
    assert result.summary == "the eval gave no metric `acc` at base, which a rule needs"


@pytest.mark.parametrize(
    ("base", "head", "words"),
    [
        ({"acc": 0.5}, {}, "the eval gave no metric `acc` at head, which a rule needs"),
        ({"acc": 0.5}, {"acc": {"not_number": "nan"}}, "metric `acc` at head is not a finite "),
        ({"acc": {"not_number": "inf"}}, {"acc": 0.5}, "metric `acc` at base is not a finite "),
        ({"acc": 0.5}, {"acc": "high"}, "metric `acc` at head is not a finite number: high"),
        ({"acc": 0.5}, {"acc": {"x": 1}}, "metric `acc` at head is not a finite number: {'x': 1}"),
    ],
)
def test_a_ruled_metric_that_cannot_be_judged_is_an_error_naming_it_and_the_revision(
    base: dict[str, Any], head: dict[str, Any], words: str
) -> None:
    result = judged(base, head, {"acc": ">= 0.25"})
    assert result.outcome is Outcome.ERROR
    assert result.summary is not None and result.summary.startswith(words)
    assert result.findings == () or all(f.kind != "metric-rule-failed" for f in result.findings)


def test_not_a_number_shows_the_value_the_eval_gave() -> None:
    comparison = compare({"acc": {"not_number": "nan"}}, {"acc": {"not_number": "inf"}}, {
        "acc": RelativeRule(max_drop=0.125)
    })  # fmt: skip
    assert [(u.metric, u.revision, u.got) for u in comparison.unusable] == [
        ("acc", "head", "inf"),
        ("acc", "base", "nan"),
    ]
    assert comparison.rows == (Row("acc", None, None, "drop ≤ 0.125 vs base", None, False),)
    both = judged({}, {}, {"acc": ">= 0.25", "loss": "<= 1"})
    assert both.summary == "the eval gave no metric `acc` at head, which a rule needs"
    assert both.findings[0].details == (
        "the eval gave no metric `loss` at head, which a rule needs"
    )
