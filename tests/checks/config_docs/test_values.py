"""values: what the docs write and what the configs hold, compared as settings."""

from __future__ import annotations

import pytest
import yaml
from gradgate.checks.config_docs.values import from_python, from_text, same


@pytest.mark.parametrize(
    ("doc", "config"),
    [
        ("3e-4", yaml.safe_load("lr: 3e-4")["lr"]),  # PyYAML reads it as the text "3e-4"
        ("0.0003", yaml.safe_load("lr: 3.0e-4")["lr"]),
        ("1.10", yaml.safe_load("v: 1.10")["v"]),  # PyYAML: the float 1.1
        ("32", 32.0),
        ("1_000", 1000),
        ("true", True),
        ("True", True),
        ("None", None),
        ("null", None),
        ('"adamw"', "adamw"),
        ("adamw", "adamw"),
        ("[64, 64]", [64, 64]),
        ("{a: 1}", {"a": 1}),
        ("0.3", 0.1 + 0.2),  # a value computed in Python, written out in the docs
    ],
)
def test_equal_settings_agree(doc: str, config: object) -> None:
    assert same(from_text(doc), from_python(config))


@pytest.mark.parametrize(
    ("doc", "config"),
    [
        ("32", 64),
        ("3e-4", 3e-3),
        ("true", 1),  # a flag is not a count
        ("0", False),
        ("adamw", "AdamW"),
        ("[64, 64]", [64, 32]),
        ("null", "null-ish"),
    ],
)
def test_different_settings_disagree(doc: str, config: object) -> None:
    assert not same(from_text(doc), from_python(config))


def test_the_text_as_written_is_kept_for_messages() -> None:
    assert from_text(" 3.0e-4 ").text == "3.0e-4"
    assert from_python(yaml.safe_load("lr: 3e-4")["lr"], "3e-4").text == "3e-4"
