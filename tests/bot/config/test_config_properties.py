"""Properties of `.gradgate.yml` reading (bot/config): whatever the file holds, the result is a
Config or one ConfigError, never another exception; and a valid Config written back as YAML
reads back as the same Config."""

from __future__ import annotations

import contextlib
from typing import Any

import yaml
from gradgate.bot.config.model import Config, load_config
from gradgate.checks import REGISTRY
from gradgate.checks.errors import ConfigError
from hypothesis import given, settings
from hypothesis import strategies as st

FAST = settings(max_examples=60, deadline=None)
CHECKS = sorted(REGISTRY)
# Keys the file really has, so that generated documents reach past the top level.
KEYS = st.sampled_from(
    [
        *Config.model_fields,
        "gradient-sensitive",
        "name",
        "paths",
        "checks",
        "owners",
        "description",
        "review",
        "confirm_s",
        "default",
        *CHECKS,
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(CHECKS),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.one_of(KEYS, SCALARS), inner, max_size=3)
    ),
    max_leaves=12,
)


def read(text: str) -> Config | None:
    """The Config, or None where the file is rejected with a ConfigError."""
    with contextlib.suppress(ConfigError):
        return load_config(text)
    return None


@FAST
@given(st.dictionaries(KEYS, VALUES, max_size=4))
def test_any_yaml_document_is_a_config_or_a_config_error(document: dict[str, Any]) -> None:
    read(yaml.safe_dump(document, allow_unicode=True))


@FAST
@given(st.lists(st.sampled_from([*"ab:-[]{}&*!|>'\"#%@ \n\t0.,?~", "zones", "\n  - "])))
def test_any_text_is_a_config_or_a_config_error(pieces: list[str]) -> None:
    read("".join(pieces))


@st.composite
def configs(draw: st.DrawFn) -> Config:
    names = draw(st.lists(st.from_regex(r"[a-z][a-z0-9_.-]{0,8}", fullmatch=True), unique=True))
    zones = [
        {
            "name": name,
            "paths": [draw(st.from_regex(r"[a-z*]{1,6}(/[a-z*]{1,6}){0,2}/?", fullmatch=True))],
            "checks": draw(st.lists(st.sampled_from(CHECKS), max_size=2, unique=True)),
            "owners": draw(st.lists(st.from_regex(r"@[a-z]{1,6}", fullmatch=True), max_size=2)),
        }
        for name in names
    ]
    document: dict[str, Any] = {"version": 1, "zones": zones}
    if draw(st.booleans()):
        document["always"] = draw(st.lists(st.sampled_from(CHECKS), max_size=3, unique=True))
    if draw(st.booleans()):
        document["report"] = {"review": draw(st.sampled_from(["off", "comment"]))}
    if draw(st.booleans()):
        document["trust"] = {"confirm_s": draw(st.integers(0, 7 * 86_400))}
    if draw(st.booleans()):
        document["sandbox"] = draw(st.sampled_from(["auto", "require"]))
    return load_config(yaml.safe_dump(document))


@FAST
@given(configs())
def test_a_config_written_back_reads_back_the_same(config: Config) -> None:
    written = yaml.safe_dump(config.model_dump(mode="json", by_alias=True, exclude_unset=True))
    assert load_config(written) == config
