"""`checks.metrics` in .gradgate.yml: rules are parsed once, and a bad one names its key."""

from __future__ import annotations

import pytest
from gradgate.bot.config.model import load_config
from gradgate.checks.base import Outcome
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import ConfigError
from gradgate.checks.metrics.check import MetricsCheck
from gradgate.checks.metrics.settings import MetricsSettings


def test_absolute_relative_and_listed_rules_load() -> None:
    config = load_config(
        "checks:\n  metrics:\n    entrypoint: eval.py:evaluate\n    rules:\n"
        '      accuracy: [">= 0.85", {max_drop: 0.005}]\n      latency_ms_p95: "<= 200"\n'
    )

    settings = config.settings_for("metrics")
    assert isinstance(settings, MetricsSettings)
    assert settings.rules["latency_ms_p95"] == "<= 200"


@pytest.mark.parametrize(
    "rule", ['"about 0.85"', '">= high"', "{max_drop: -1}", "{}", "{max_fall: 0.1}"]
)
def test_a_rule_that_cannot_be_read_is_a_config_error_naming_the_metric(rule: str) -> None:
    text = f"checks:\n  metrics:\n    entrypoint: eval.py:evaluate\n    rules:\n      acc: {rule}\n"

    with pytest.raises(ConfigError) as raised:
        load_config(text)

    assert "checks.metrics.rules.acc" in raised.value.message
    assert raised.value.line == 5


def test_the_check_without_an_entrypoint_is_an_error_saying_what_to_add() -> None:
    ctx = CheckContext(
        base_sha="1" * 40, head_sha="2" * 40, changes=(), source=None,  # type: ignore[arg-type]
        settings=MetricsSettings(rules={"accuracy": ">= 0.85"}),
    )  # fmt: skip

    result = MetricsCheck().run(ctx)

    assert result.outcome is Outcome.ERROR
    assert result.summary.startswith("`metrics` needs `checks.metrics.entrypoint` in .gradgate.yml")
