"""Values as the docs and the configs write them, normalised so `3e-4`, `3.0e-4` and `0.0003` agree.

PyYAML (YAML 1.1) reads an unquoted `3e-4` as text and `1.10` as the float 1.1; JSON, TOML and
Python literals have their own types. Everything becomes one ``Value``: the text as written (for
messages and suggestions) and a normal form (``kind``, ``data``) that ``same`` compares (pure).
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import yaml
from gradgate.checks.bounded_yaml import safe_load

Kind = Literal["num", "bool", "null", "str", "seq", "map", "unknown"]

# Decimal and scientific numbers, with an optional sign and `_` separators (YAML, TOML, Python).
_NUMBER = re.compile(r"[-+]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?")
_TRUE = frozenset({"true"})
_FALSE = frozenset({"false"})
_NULL = frozenset({"null", "none", "~"})


@dataclass(frozen=True, slots=True)
class Value:
    text: str  # as written where it was read, e.g. "3.0e-4"
    kind: Kind
    data: object  # float | bool | None | str | tuple of Values | tuple of (str, Value)

    def shown(self) -> str:
        return self.text if len(self.text) <= 60 else self.text[:57] + "..."


def same(a: Value, b: Value) -> bool:
    """Whether two values mean the same setting: numbers by value, the rest exactly."""
    return a.kind != "unknown" and b.kind != "unknown" and norm(a) == norm(b)


def norm(value: Value) -> Hashable:
    """The value's normal form: equal for values that mean the same setting.

    Numbers keep 12 significant digits, so `0.1 + 0.2` written out still equals `0.3`.
    """
    if value.kind == "num":
        assert isinstance(value.data, float)
        return ("num", float(f"{value.data:.12g}"))
    if value.kind == "seq":
        assert isinstance(value.data, tuple)
        return ("seq", tuple(norm(item) for item in value.data))
    if value.kind == "map":
        assert isinstance(value.data, tuple)
        return ("map", tuple((key, norm(item)) for key, item in value.data))
    if value.kind == "unknown":
        return ("unknown", id(value))
    return (value.kind, value.data)


def number(text: str) -> float | None:
    """``text`` as a number if the whole of it is one (`32`, `3e-4`, `1_000`), else None."""
    stripped = text.strip()
    if not _NUMBER.fullmatch(stripped) or not any(c.isdigit() for c in stripped):
        return None
    try:
        return float(stripped.replace("_", ""))
    except ValueError:
        return None


def from_text(text: str) -> Value:
    """A value written in prose, a table cell or a code span: `32`, `3e-4`, `true`, `"adamw"`."""
    raw = text.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return Value(raw, "str", raw[1:-1])
    found = number(raw)
    if found is not None:
        return Value(raw, "num", found)
    if raw[:1] in "[{" and raw[-1:] in "]}":
        try:  # a flow list or mapping, `[64, 64]`
            return from_python(safe_load(raw), raw)
        except (yaml.YAMLError, RecursionError):
            return Value(raw, "str", raw)
    lowered = raw.lower()
    if lowered in _TRUE or lowered in _FALSE:
        return Value(raw, "bool", lowered in _TRUE)
    if lowered in _NULL:
        return Value(raw, "null", None)
    return Value(raw, "str", raw)


def from_python(data: object, text: str | None = None) -> Value:
    """A value read by json, tomllib, ast.literal_eval or PyYAML; ``text``: as the file wrote it.

    Text that reads as a number is one (PyYAML's `3e-4`; a quoted `"3e-4"` in a config means the
    same learning rate to anyone reading the docs).
    """
    shown = _shown(data) if text is None else text.strip()
    if isinstance(data, bool):
        return Value(shown, "bool", data)
    if data is None:
        return Value(shown, "null", None)
    if isinstance(data, int | float):
        as_float = float(data)
        return (
            Value(shown, "num", as_float) if math.isfinite(as_float) else Value(shown, "str", shown)
        )
    if isinstance(data, str):
        found = number(data)
        return Value(shown, "str", data) if found is None else Value(shown, "num", found)
    if isinstance(data, datetime.date | datetime.time):
        return Value(shown, "str", shown)  # a date is compared as written
    if isinstance(data, Mapping):
        entries = tuple((str(k), from_python(v)) for k, v in data.items())
        return Value(shown, "map", entries)
    if isinstance(data, Sequence):
        return Value(shown, "seq", tuple(from_python(item) for item in data))
    return Value(shown, "unknown", None)


def _shown(data: object) -> str:
    if isinstance(data, bool):
        return "true" if data else "false"
    if data is None:
        return "null"
    if isinstance(data, str):
        return data
    if isinstance(data, Mapping):
        return "{" + ", ".join(f"{k}: {_shown(v)}" for k, v in data.items()) + "}"
    if isinstance(data, list | tuple):
        return "[" + ", ".join(_shown(item) for item in data) + "]"
    return str(data)
