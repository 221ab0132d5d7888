"""JSON as a user reads it, indented by two spaces: `json.dumps(value, indent=2)`'s text (pure).

Python's JSON encoder runs in C only without `indent`; with it, every value of a 100,000-path
plan went through the pure-Python encoder (0.15 s, a tenth of `gradgate plan`, issue 38). Here
the containers are walked in Python and every string is encoded by the C function the encoder
itself uses; a list of strings (a zone's paths) is joined whole: as it is where no string holds
anything JSON escapes (checked in C), else by the C encoder with the newline and indent as its
item separator. Same text, byte for byte (tests/bot/report/test_json_text.py holds it to
`json.dumps`).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _string
from typing import Any

_STEP = "  "
# The characters JSON writes as they are (ensure_ascii): printable ASCII but `"` and `\`.
_PLAIN = bytes(c for c in range(0x20, 0x7F) if chr(c) not in '"\\')


def indented(value: Any) -> str:
    """``json.dumps(value, indent=2)``: TypeError for what JSON cannot hold, as it raises."""
    out: list[str] = []
    _write(value, "\n", out)
    return "".join(out)


def _key(key: object) -> str:
    """JSON's keys are strings: json.dumps writes a number, a bool or None as its text."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, int | float):
        return json.dumps(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _write(value: Any, newline: str, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + _STEP
        sep = "{" + inner
        for key, item in value.items():
            out.append(f"{sep}{_string(_key(key))}: ")
            _write(item, inner, out)
            sep = "," + inner
        out.append(newline + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = newline + _STEP
        if set(map(type, value)) == {str}:  # (checked in C)
            out.append(f"[{inner}{_strings(value, inner)}{newline}]")
            return
        sep = "[" + inner
        for item in value:
            out.append(sep)
            _write(item, inner, out)
            sep = "," + inner
        out.append(newline + "]")
    else:  # a number, a bool or None (TypeError for anything else, as json.dumps raises)
        out.append(json.dumps(value))


def _strings(value: list[str] | tuple[str, ...], inner: str) -> str:
    """The items of a list of strings, each encoded, one per line."""
    text = "".join(value)
    if text.isascii() and not text.encode("ascii").translate(None, _PLAIN):
        # Nothing in them to escape (most paths): each string is its own JSON text, quoted.
        return '"' + f'",{inner}"'.join(value) + '"'
    # Without `indent` the encoder runs in C, and puts its item separator between the strings.
    return json.dumps(value, separators=("," + inner, ": "))[1:-1]
