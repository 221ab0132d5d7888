"""JSON a user reads: the text `json.dumps(value, indent=2)` writes, byte for byte."""

from __future__ import annotations

import enum
import json
import math
import random
from typing import Any

import pytest
from gradgate.bot.report.json_text import indented


class Kind(enum.StrEnum):
    ZONE = "zone"


class Level(enum.IntEnum):
    HIGH = 2


ROWS: list[Any] = [
    {},
    [],
    "",
    None,
    True,
    0,
    -1.5,
    math.inf,
    float("nan"),
    {"a": [], "b": {}, "c": [[]], "d": [{}]},
    {"paths": ["src/a.py", "é/ü.py", 'quo"te\\', "tab\tnew\nline", "\x00\x1f", "😀"]},
    {"plain": ["src/a.py", "", "a b/~!#$%&'()*+,-./:;<=>?@[]^_`{|}.md"]},
    {"one each": [["a", "\x7f"], ["a", '"'], ["a", "\\"], ["a", "é"], ["a", "\n"]]},
    {"mixed": ["a", 1, None, ["b"], {"c": "d"}], "tuple": ("x", "y")},
    {3: "int key", 2.5: "float key", True: "bool key", None: "none key", "s": Kind.ZONE},
    [Kind.ZONE, Level.HIGH, {Kind.ZONE: Level.HIGH}],
]


@pytest.mark.parametrize("value", ROWS)
def test_the_text_is_json_dumps_indented_by_two(value: Any) -> None:
    assert indented(value) == json.dumps(value, indent=2)


def random_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.random() if depth < 4 else 0.0
    if pick < 0.5:
        return rng.choice(["", "a/b.py", "ünï", "\n", None, 3, -0.25, False, True])
    if pick < 0.75:
        if rng.random() < 0.5:
            return [rng.choice(["x", "y/z", "\u2028"]) for _ in range(rng.randint(0, 4))]
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{i}": random_value(rng, depth + 1) for i in range(rng.randint(0, 4))}


@pytest.mark.parametrize("seed", range(20))
def test_random_values_give_json_dumps_text(seed: int) -> None:
    value = random_value(random.Random(seed))
    assert indented(value) == json.dumps(value, indent=2)


def test_what_json_cannot_hold_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        indented({"a": {1, 2}})
    with pytest.raises(TypeError):
        indented({(1, 2): "tuple key"})
