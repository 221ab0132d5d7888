"""JSON and TOML configs -> Facts. The values come from json and tomllib; the lines, which neither
gives, from a scan of the text for each key (the first line that sets it).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from gradgate.checks.config_docs.model import Fact, Key, Problem
from gradgate.checks.config_docs.values import from_python

_JSON_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')
_TOML_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(
    r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)


def read_json(path: str, text: str) -> tuple[list[Fact], list[Problem]]:
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:  # json keeps the last without a word, and so do the facts
                twice.append(key)
            out[key] = value
        return out

    try:
        data = json.loads(text, object_pairs_hook=pairs)
    except (json.JSONDecodeError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        why = getattr(exc, "msg", "it nests too deeply")
        return [], [Problem("unparsed", path, line, f"it is not valid JSON ({why})", True)]
    lines = _json_lines(text)
    problems = [
        Problem(
            "collision",
            path,
            _nth_line(text, key, 2),
            f"`{key}` is set twice in one object; JSON readers keep only the last one",
            True,
        )
        for key in dict.fromkeys(twice)
    ]
    return _facts(path, data, (), lambda key: (lines.get(key[-1], 1), None)), problems


def read_toml(path: str, text: str) -> tuple[list[Fact], list[Problem]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        why = str(exc)
        match = re.search(r"line (\d+)", why)
        kind = (
            "collision" if "redefine" in why.lower() or "overwrite" in why.lower() else "unparsed"
        )
        return [], [
            Problem(
                kind,
                path,
                int(match.group(1)) if match else None,
                f"it is not valid TOML ({why})",
                True,
            )
        ]
    lines = _toml_lines(text)
    return _facts(path, data, (), lambda key: lines.get(key, lines.get(key[-1:], (1, None)))), []


def _facts(path: str, data: object, key: Key, line_of: Any) -> list[Fact]:
    if isinstance(data, Mapping):
        out: list[Fact] = []
        for name, value in data.items():
            out += _facts(path, value, (*key, str(name)), line_of)
        return out
    if not key:
        return []
    line, written = line_of(key)
    return [Fact(path, line, key, from_python(data, written), "config")]


def _json_lines(text: str) -> dict[str, int]:
    """The line where each key name first appears (JSON gives no positions)."""
    lines: dict[str, int] = {}
    for match in _JSON_KEY.finditer(text):
        lines.setdefault(match.group(1), text.count("\n", 0, match.start()) + 1)
    return lines


def _nth_line(text: str, key: str, nth: int) -> int | None:
    hits = [m for m in _JSON_KEY.finditer(text) if m.group(1) == key]
    return text.count("\n", 0, hits[nth - 1].start()) + 1 if len(hits) >= nth else None


def _toml_lines(text: str) -> dict[Key, tuple[int, str | None]]:
    """Full key path -> the line that sets it and the value as written there (one-line values),
    following `[table]` headers and dotted keys."""
    lines: dict[Key, tuple[int, str | None]] = {}
    table: Key = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TOML_TABLE.match(line)
        if header:
            table = _split_toml_key(header.group(1))
            continue
        assignment = _TOML_KEY.match(line)
        if assignment:
            key = (*table, *_split_toml_key(assignment.group(1)))
            written = line[assignment.end() :].split(" #", 1)[0].strip() or None
            if written and written[0] in "[{\"'" and written[-1] not in "]}\"'":
                written = None  # it goes on below
            elif written and written[0] in "\"'":
                written = written[1:-1]
            lines.setdefault(key, (number, written))
            lines.setdefault(key[-1:], (number, written))
    return lines


def _split_toml_key(text: str) -> Key:
    parts = re.findall(r'"([^"]*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', text)
    return tuple(next(p for p in part if p) if any(part) else "" for part in parts)
