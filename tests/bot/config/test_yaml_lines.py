"""bot.config.yaml_lines: libyaml's composer and PyYAML's give the same values, lines and errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradgate.bot.config import yaml_lines
from gradgate.bot.config.yaml_lines import read_marked

EXAMPLE = Path(__file__).resolve().parents[3] / "config.example.yaml"
# More brackets than the cap under which text goes to libyaml unmeasured, nesting 3 deep.
SHALLOW_BUT_LONG = "zones:\n" + "".join(
    f"  - {{name: z{i}, paths: [src/z{i}/**], checks: [protected]}}\n" for i in range(700)
)


@pytest.mark.parametrize(
    "text",
    [
        EXAMPLE.read_text(encoding="utf-8"),
        "owners: &o ['@a']\nzones:\n  - {name: a, paths: ['a/**'], owners: *o}\n",
        "zones:\n  - name: a\n    paths: [a]\n  - name: a\n",
        "always: [protected\nzones: []\n",  # invalid: PyYAML words the error
        "\tversion: 1\n",
        "",
        "[" * 3000 + "]" * 3000,  # deep flow nesting stays on the Python composer
        SHALLOW_BUT_LONG,
    ],
    ids=["example", "aliases", "duplicate-names", "unclosed", "tab", "empty", "deep-flow", "long"],
)
def test_libyaml_composition_reads_exactly_what_pyyaml_reads(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = read_marked(text)
    monkeypatch.setattr(yaml_lines, "_C_LOADER", None)
    assert read_marked(text) == fast


def test_valid_configs_are_composed_by_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    if yaml_lines._C_LOADER is None:
        pytest.skip("PyYAML was built without libyaml")
    calls: list[str] = []
    real = yaml_lines._compose_in_c

    def spy(text: str) -> object:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(yaml_lines, "_compose_in_c", spy)
    assert read_marked("version: 1\n").value == {"version": 1}
    assert calls == ["version: 1\n"]
    assert real("[" * 3000) is None  # refused before libyaml sees it
    assert real("[" * 3000 + "]" * 3000) is None  # measured, too deep for libyaml's composer


def test_a_long_config_that_nests_shallowly_is_composed_by_libyaml() -> None:
    if yaml_lines._C_LOADER is None:
        pytest.skip("PyYAML was built without libyaml")
    assert SHALLOW_BUT_LONG.count("[") + SHALLOW_BUT_LONG.count("{") > yaml_lines._C_MAX_BRACKETS
    assert yaml_lines._compose_in_c(SHALLOW_BUT_LONG) is not None
