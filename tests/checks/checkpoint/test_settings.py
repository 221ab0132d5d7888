"""`checks.checkpoint` in .gradgate.yml: shorthands, defaults, and migrations checked on load."""

from __future__ import annotations

import pytest
from gradgate.bot.config.model import load_config
from gradgate.checks.checkpoint.settings import CheckpointSettings
from gradgate.checks.checkpoint.snippets import migration_yaml
from gradgate.checks.errors import ConfigError


def settings(block: str) -> CheckpointSettings:
    loaded = load_config("checks:\n  checkpoint:\n" + block).settings_for("checkpoint")
    assert isinstance(loaded, CheckpointSettings)
    return loaded


def test_with_no_references_the_base_model_is_the_reference() -> None:
    assert settings("    timeout_s: 60\n").checks_base
    with_file = settings("    references: [ckpt/v1.pt]\n")
    assert not with_file.checks_base
    assert with_file.references[0].path == "ckpt/v1.pt" and with_file.references[0].key is None
    assert settings("    references: [a.pt]\n    from_base: true\n").checks_base


def test_equivalence_false_is_a_shorthand() -> None:
    assert not settings("    equivalence: false\n").equivalence.enabled
    assert settings("    equivalence: {atol: 0.001}\n").equivalence.atol == 0.001


@pytest.mark.parametrize(
    ("migrations", "words"),
    [
        ("'^fc(\\.': 'x.'", "not a regular expression"),
        ("'^fc\\.': '\\1classifier.'", "invalid group reference 1"),
        ("'^(?P<m>fc)\\.': '\\g<mod>.'", "unknown group name 'mod'"),
    ],
)
def test_a_migration_that_cannot_work_is_a_config_error_naming_the_key(
    migrations: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        settings(f"    migrations:\n      {migrations}\n")
    assert "checks.checkpoint.migrations" in str(caught.value)
    assert words in str(caught.value)


def test_the_printed_map_reads_back_as_the_same_rules_in_order() -> None:
    rules = [(r"^fc\.", "classifier."), (r"(^|\.)gamma$", r"\g<1>weight"), ("it's", None)]
    loaded = load_config(migration_yaml(rules))
    parsed = loaded.settings_for("checkpoint")
    assert isinstance(parsed, CheckpointSettings)
    assert parsed.rules == rules
