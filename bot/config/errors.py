"""Config problems in the YAML's terms: pydantic errors -> messages, then one ConfigError.

validation_problems(exc, lines, model=)   each pydantic error as a Problem with its line
top_level_problem(value, lines, model=)   the document is not a mapping at all
config_error(problems, source, zone_names) the first problem by line, then every other one
did_you_mean(word, choices)               "; did you mean `paths`?" or ""

`model` is the root model (`model.Config`), passed in so that this module needs no import
of the models that use it; zones and per-check settings are recognised by their key path.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from datetime import date
from typing import Annotated, Any, get_args, get_origin

from gradgate.bot.config.yaml_lines import Path, Problem
from gradgate.checks.errors import ConfigError
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

_NOT_EMPTY = {"paths": "must list at least one pattern", "markers": "must list at least one marker"}


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""


def validation_problems(
    exc: ValidationError, lines: dict[Path, int], *, model: type[BaseModel]
) -> list[Problem]:
    errors = exc.errors(include_url=False)
    locs = [tuple(e["loc"]) for e in errors]
    problems = []
    for error, loc in zip(errors, locs, strict=True):
        if error["type"] == "too_short" and any(o[: len(loc)] == loc and o != loc for o in locs):
            continue  # "[1, null]" is too short only because its items failed; they say why
        if error["type"] == "duplicate_zone_name":
            loc = (*loc, error["ctx"]["index"], "name")
        line = _line_at(loc, lines)
        rank: float | None = line
        if error["type"] == "missing":
            siblings = (n for p, n in lines.items() if p[: len(loc) - 1] == loc[:-1])
            rank = max(siblings, default=line or 0) + 0.5
        problems.append(Problem(loc, line, _explain(error, loc, lines, model), rank))
    return problems


def top_level_problem(value: Any, lines: dict[Path, int], *, model: type[BaseModel]) -> Problem:
    message = f"the top level must be {_expected((), model)}; got {_got(value)}"
    return Problem((), lines.get(()), message)


def config_error(
    problems: list[Problem], *, source: str, zone_names: dict[int, str]
) -> ConfigError:
    ordered = sorted(problems, key=lambda p: (p.line is None, p.rank or p.line or 0))
    first, rest = ordered[0], ordered[1:]
    message = first.message
    if rest:
        message += f"\n{len(rest)} more problem{'s' if len(rest) > 1 else ''}:"
        for problem in rest:
            where = source if problem.line is None else f"{source}:{problem.line}"
            key = f" at `{_key_path(problem.path, zone_names)}`" if problem.path else ""
            message += f"\n  {where}{key}: {problem.message}"
    key_path = _key_path(first.path, zone_names) if first.path else None
    return ConfigError(message, source=source, key_path=key_path, line=first.line)


def _explain(error: ErrorDetails, loc: Path, lines: dict[Path, int], model: type[BaseModel]) -> str:
    kind, value, ctx = error["type"], error["input"], error.get("ctx", {})
    last = loc[-1] if loc else None
    if loc == ("version",):
        if isinstance(value, int) and not isinstance(value, bool):
            return f"unsupported `version: {value}`; this version of gradgate reads `version: 1`"
        return _type_mismatch("the whole number 1", value)
    if kind == "extra_forbidden":
        parent = _annotation_at(loc[:-1], model)
        allowed = _keys(parent) if isinstance(parent, type) else []
        hint = did_you_mean(str(last), allowed)
        if loc[:-1] == ("checks",):
            return f"unknown check `{last}`{hint} (known checks: {', '.join(allowed)})"
        return f"unknown key `{last}`{hint} (allowed: {', '.join(allowed)})"
    if kind == "missing":
        return f"missing required key `{last}`"
    if kind == "duplicate_zone_name":
        first_line = lines.get(("zones", ctx["first"], "name"), "?")
        name, first = ctx["name"], ctx["first"]
        return f"zone name `{name}` is already used by zones[{first}] (line {first_line})"
    if kind == "value_error":
        return str(ctx["error"])
    if kind == "too_short":
        return _NOT_EMPTY.get(str(last), "must not be empty")
    if kind == "string_pattern_mismatch" and last == "name":
        return (
            f"zone name {_shown(value)} may use only letters, digits, `_`, `.` and `-`, "
            "and must start with a letter or digit"
        )
    bounds = {
        "greater_than": "greater than {gt}",
        "greater_than_equal": "at least {ge}",
        "less_than": "less than {lt}",
        "less_than_equal": "at most {le}",
    }
    if kind in bounds:
        limits = {k: f"{v:g}" if isinstance(v, float) else v for k, v in ctx.items()}
        return f"must be {bounds[kind].format(**limits)}, got {_shown(value)}"
    if kind == "finite_number":
        return f"must be a finite number, got {_shown(value)}"
    if kind.endswith(("_type", "_parsing")) or kind == "int_from_float":
        return _type_mismatch(_expected(loc, model), value)
    message = error["msg"]
    return message[:1].lower() + message[1:]


def _strip(annotation: Any) -> Any:
    """The type under Annotated[...] and `X | None`."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
            continue
        args = [a for a in get_args(annotation) if a is not type(None)]
        if get_origin(annotation) is not tuple and len(args) == 1:
            annotation = args[0]
            continue
        return annotation


def _keys(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def _annotation_at(loc: Path, model: type[BaseModel]) -> Any:
    """The declared type of the value at `loc` in `model`, or None where the schema has none."""
    current: Any = model
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            fields = {field.alias or name: field for name, field in current.model_fields.items()}
            if part not in fields:
                return None
            current = _strip(fields[str(part)].annotation)
        elif get_origin(current) is tuple and isinstance(part, int):
            current = _strip(get_args(current)[0])
        else:
            return None
    return current


def _expected(loc: Path, model: type[BaseModel]) -> str:
    annotation = _annotation_at(loc, model)
    if loc == ():
        return "a mapping with the keys " + ", ".join(_keys(model))
    if len(loc) == 2 and loc[0] == "zones" and isinstance(loc[1], int):
        return "a zone (a mapping with the keys " + ", ".join(_keys(annotation)) + ")"
    if loc == ("checks",):
        return "a mapping from check names to their settings"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "a mapping of settings (" + ", ".join(_keys(annotation)) + ")"
    if get_origin(annotation) is tuple:
        return "a list of zones" if loc == ("zones",) else "a list of strings"
    names: dict[Any, str] = {str: "a string", int: "a whole number", float: "a number"}
    return names.get(annotation, "a value")


def _shown(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _got(value: Any) -> str:
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return f"a boolean (`{str(value).lower()}`)"
    if isinstance(value, int | float):
        return f"a number (`{value}`)"
    if isinstance(value, str):
        return f"a string (`{_shown(value)}`)"
    if isinstance(value, date):
        return f"a date (`{value.isoformat()}`)"
    kinds: dict[type, str] = {list: "a list", dict: "a mapping"}
    return kinds.get(type(value), type(value).__name__)


def _type_mismatch(expected: str, value: Any) -> str:
    message = f"expected {expected}, got {_got(value)}"
    if expected.startswith("a list") and isinstance(value, str):
        return f"{message}; write a list, e.g. `[{_shown(value)}]`"
    if expected.startswith("a list") and value is None:
        return f"{message}; write `[]` for an empty list"
    if expected.startswith("a mapping") and value is None:
        return f"{message}; leave the key out to use the defaults, or write `{{}}`"
    if isinstance(value, bool):
        return f"{message}; YAML reads unquoted yes/no/on/off/true/false as booleans, so quote text"
    return message


def _line_at(path: Path, lines: dict[Path, int]) -> int | None:
    while path not in lines and path:
        path = path[:-1]  # a missing key: the line of the mapping that lacks it
    return lines.get(path)


def _key_path(path: Path, zone_names: dict[int, str]) -> str:
    text = ""
    for depth, part in enumerate(path):
        if isinstance(part, int):
            text += f"[{part}]"
            if depth == 1 and path[0] == "zones" and part in zone_names:
                text += f" (name: {zone_names[part]})"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part)}]"
    return text
