"""The `data:` block and `checks.data` in .gradgate.yml: accepted as documented, mistakes named."""

from __future__ import annotations

import pytest
from gradgate.bot.config.model import load_config
from gradgate.checks.data.settings import DataSettings
from gradgate.checks.errors import ConfigError

CONFIG = """\
data:
  entrypoint: "src/pkg/data.py:eval_transform"
zones:
  - name: data-path
    paths: ["src/pkg/data/**"]
    checks: [data]
checks:
  data:
    seed: 3
    tolerance: 0.001
    allow:
      - change: channel-order
        reason: "pretrained on RGB now"
"""


def test_the_data_block_and_its_settings_load() -> None:
    config = load_config(CONFIG)
    assert config.data is not None
    assert config.data.entrypoint == "src/pkg/data.py:eval_transform"
    assert config.zones[0].checks == ("data",)
    settings = config.settings_for("data")
    assert isinstance(settings, DataSettings)
    assert (settings.seed, settings.tolerance) == (3, 0.001)
    assert settings.allow[0].reason == "pretrained on RGB now"


def test_an_allow_rule_of_an_unknown_kind_is_named() -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(CONFIG.replace("change: channel-order", "change: colours"))
    assert "checks.data.allow[0].change" in str(raised.value)
    assert "channel-order" in str(raised.value)


def test_an_entrypoint_without_a_function_is_named() -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(CONFIG.replace("src/pkg/data.py:eval_transform", "src/pkg/data.py"))
    assert "is not an entrypoint" in str(raised.value)
