"""bot.config.bounds: config input bounded before parsing; the adopting PR's built-in floor."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradgate.bot.config.bounds import (
    MAX_CONFIG_BYTES,
    adopting,
    decode_config,
    read_config_file,
    refuse_entry,
)
from gradgate.bot.config.model import Config
from gradgate.checks.errors import ConfigError


def padded(size: int) -> bytes:
    """A valid config of exactly ``size`` bytes."""
    head = b"always: [protected]\n#"
    return head + b"x" * (size - len(head) - 1) + b"\n"


def test_a_config_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    raw = padded(MAX_CONFIG_BYTES)
    assert len(decode_config(raw, "c")) == MAX_CONFIG_BYTES
    (tmp_path / "c.yml").write_bytes(raw)
    assert len(read_config_file(tmp_path / "c.yml")) == MAX_CONFIG_BYTES
    refuse_entry(0o100644, MAX_CONFIG_BYTES, "c")


@pytest.mark.parametrize(("size", "shown"), [(MAX_CONFIG_BYTES + 1, "1.0"), (3 << 20, "3.0")])
def test_a_config_over_the_limit_is_refused_naming_its_size_and_the_limit(
    tmp_path: Path, size: int, shown: str
) -> None:
    expected = f"the file is {shown} MB or more, over gradgate's 1 MB limit for a config"
    for read in (
        lambda: decode_config(padded(size), "c"),
        lambda: refuse_entry(0o100644, size, "c"),
    ):
        with pytest.raises(ConfigError) as caught:
            read()
        assert caught.value.message == expected
    (tmp_path / "c.yml").write_bytes(padded(size))
    with pytest.raises(ConfigError, match="over gradgate's 1 MB limit"):
        read_config_file(tmp_path / "c.yml")


def test_a_missing_config_file_says_why(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        read_config_file(tmp_path / "none.yml")
    assert caught.value.message == "cannot read it: No such file or directory"


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        (0o120000, "a symbolic link"),
        (0o160000, "a submodule"),
        (0o040000, "a directory"),
        (0o100600, "not a regular file (mode 100600)"),
    ],
)
def test_a_config_in_git_that_is_not_a_file_is_refused(mode: int, kind: str) -> None:
    with pytest.raises(ConfigError) as caught:
        refuse_entry(mode, 10, ".gradgate.yml at base abc1234")
    assert caught.value.message == f"it is {kind} in git, not a file; commit the config itself"


@pytest.mark.parametrize("mode", [0o100644, 0o100755])
def test_a_regular_file_in_git_is_accepted(mode: int) -> None:
    refuse_entry(mode, 10, "c")


def test_a_non_utf8_config_is_an_error_naming_the_byte() -> None:
    with pytest.raises(ConfigError) as caught:
        decode_config(b"# caf\xe9\n", "c")
    assert caught.value.message == "the file is not UTF-8 text (byte 5); save it as UTF-8"


@pytest.mark.parametrize(
    ("written", "always"),
    [
        ({}, ("protected",)),
        ({"always": []}, ("protected",)),
        ({"always": ["gradient"]}, ("protected", "gradient")),
        ({"always": ["gradient", "protected"]}, ("gradient", "protected")),
    ],
)
def test_the_adopting_pr_keeps_protected_always(
    written: dict[str, object], always: tuple[str, ...]
) -> None:
    assert adopting(Config.model_validate(written)).always == always


def test_the_adopting_pr_keeps_the_built_in_markers_beside_its_own() -> None:
    config = Config.model_validate({"checks": {"protected": {"markers": ["KEEP"]}}})
    markers = adopting(config).settings_for("protected").model_dump()["markers"]
    assert markers == ("NO_REFAC", "DON'T TOUCH", "KEEP")
