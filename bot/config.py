"""`.gradgate.yml` text -> a frozen, validated Config; unknown keys rejected; errors name key, line.

load_config(text)        YAML (with the line of every key) -> pydantic models -> Config, or one
                         ConfigError listing every problem by key path and line
config_schema()          the JSON Schema of Config, in the YAML spellings (`gradgate schema`)
starter_config(paths)    the commented starter file `gradgate init` proposes for a repository
config_hash(text)        the short hash a report shows so a verdict names its policy
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, get_args, get_origin

import pathspec
import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    WithJsonSchema,
    create_model,
    field_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from bot.errors import ConfigError
from checks import REGISTRY
from checks.base import CheckSettings

CONFIG_FILENAME = ".gradgate.yml"

_FROZEN = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------------------------------------
# The models


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""


def _known_check(name: str) -> str:
    if name not in REGISTRY:
        known = ", ".join(REGISTRY)
        raise ValueError(
            f"unknown check `{name}`{_did_you_mean(name, REGISTRY)} (known checks: {known})"
        )
    return name


def _gitignore_pattern(pattern: str) -> str:
    try:
        compiled = pathspec.GitIgnoreSpec.from_lines([pattern]).patterns[0]
    except (
        ValueError,
        IndexError,
        re.error,
    ):  # pathspec raises IndexError for "", re.error for [z-a]
        raise ValueError(f"`{pattern}` is not a valid gitignore pattern") from None
    if compiled.include is None:  # gitignore syntax silently ignores the line
        if not pattern.strip():
            raise ValueError("a pattern must not be blank")
        if pattern.startswith("#"):
            raise ValueError(
                f"`{pattern}` is a comment in gitignore syntax and matches nothing; "
                f"write `\\{pattern}` to match a name that starts with `#`"
            )
        raise ValueError(f"`{pattern}` is not a valid gitignore pattern; it would match nothing")
    return pattern


CheckName = Annotated[
    str, AfterValidator(_known_check), WithJsonSchema({"type": "string", "enum": list(REGISTRY)})
]
GitignorePattern = Annotated[str, AfterValidator(_gitignore_pattern)]


class Zone(BaseModel):
    """A named set of paths and the checks a change inside it requires."""

    model_config = _FROZEN

    name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        description="Zone name: letters, digits, `_`, `.` and `-`; unique in the file.",
    )
    paths: tuple[GitignorePattern, ...] = Field(
        min_length=1,
        description="gitignore-style patterns; a leading `!` excludes inside the zone.",
    )
    checks: tuple[CheckName, ...] = Field(
        default=(), description="Checks required when any file of the zone changes."
    )
    owners: tuple[str, ...] = Field(default=(), description="Teams or users, e.g. `@ml-team`.")
    description: str | None = Field(
        default=None, description="What the zone holds and why it is protected, for the report."
    )

    @field_validator("paths")
    @classmethod
    def _includes_something(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not any(p.include for p in pathspec.GitIgnoreSpec.from_lines(value).patterns):
            raise ValueError(
                "every pattern starts with `!`, which only excludes; "
                "add at least one pattern that includes files"
            )
        return value


def _checks_model() -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for name, check in REGISTRY.items():
        pending = "" if check.available else " Not yet available in this version of gradgate."
        fields[name.replace("-", "_")] = (
            check.settings_model,
            Field(
                default_factory=check.settings_model,
                alias=name,
                description=f"Settings of the `{name}` check ({check.title}).{pending}",
            ),
        )
    return create_model(
        "ChecksConfig",
        __config__=ConfigDict(extra="forbid", frozen=True, populate_by_name=True),
        __doc__="Per-check settings, one block per check name.",
        **fields,
    )


ChecksConfig = _checks_model()


class Config(BaseModel):
    """A whole `.gradgate.yml`: zones, the checks that always run, and each check's settings."""

    model_config = _FROZEN

    # strict: `version: "1"` or `version: true` is a mistake, not a version.
    version: int = Field(
        default=1, ge=1, le=1, strict=True, description="Config format version; only 1."
    )
    zones: tuple[Zone, ...] = Field(default=(), description="Protected zones.")
    always: tuple[CheckName, ...] = Field(
        default=("protected",),
        description="Checks that run on every change, whatever zones it touches.",
    )
    checks: ChecksConfig = Field(  # type: ignore[valid-type]
        default_factory=ChecksConfig, description="Per-check settings."
    )

    @field_validator("zones")
    @classmethod
    def _unique_names(cls, value: tuple[Zone, ...]) -> tuple[Zone, ...]:
        first: dict[str, int] = {}
        for index, zone in enumerate(value):
            if zone.name in first:
                # A field validator can only fail the whole list; `index` lets _explain() point at
                # the second zone's `name` instead.
                raise PydanticCustomError(
                    "duplicate_zone_name",
                    "zone name `{name}` is already used by zones[{first}]",
                    {"name": zone.name, "first": first[zone.name], "index": index},
                )
            first[zone.name] = index
        return value

    def settings_for(self, check: str) -> CheckSettings:
        value = getattr(self.checks, check.replace("-", "_"))
        assert isinstance(value, CheckSettings)
        return value


# ---------------------------------------------------------------------------------------------
# YAML with line marks

_Path = tuple[str | int, ...]
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"
# Aliases are allowed (sharing an owners list between zones is reasonable), but each alias is
# expanded when the document is walked, so a "billion laughs" document or a self-referencing
# anchor would grow without end. No real config comes near this many values.
_MAX_VALUES = 50_000
_MAX_DEPTH = 50  # a real config nests 5 deep; this also stops `&a [*a]` early


@dataclass(frozen=True, slots=True)
class _Problem:
    path: _Path | None  # None: not tied to a key (a YAML syntax error)
    line: int | None
    message: str
    # Where the problem sorts: its line, except a missing key, which sorts after its mapping's
    # other keys so that "unknown key `pathz`; did you mean `paths`?" comes first.
    rank: float | None = None


class _Invalid(Exception):
    def __init__(self, problems: list[_Problem]) -> None:
        super().__init__(problems)
        self.problems = problems


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


class _MarkedLoader(yaml.SafeLoader):
    """SafeLoader that records the line of every mapping key and list item by its key path.

    The node tree is composed first and walked (aliases expanded, up to _MAX_VALUES) to record
    lines, reject duplicate keys (PyYAML silently keeps the last) and keys that are not text;
    only then are the Python values constructed.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.lines: dict[_Path, int] = {}
        self.zone_names: dict[int, str] = {}
        self.problems: list[_Problem] = []
        self._checked: set[int] = set()

    def load_marked(self) -> Any:
        root = self.get_single_node()
        if root is None:
            return None
        self._walk(root)
        if self.problems:
            raise _Invalid(self.problems)
        return self.construct_document(root)

    def _walk(self, root: yaml.Node) -> None:
        self.lines[()] = _line(root)
        stack: list[tuple[_Path, yaml.Node]] = [((), root)]
        visited = 0
        while stack:
            path, node = stack.pop()
            visited += 1
            if visited > _MAX_VALUES:
                raise _Invalid([_Problem(None, None, _TOO_MANY_VALUES)])
            if len(path) > _MAX_DEPTH:
                raise _Invalid([_Problem(None, _line(node), _TOO_DEEP)])
            children: list[tuple[_Path, yaml.Node, yaml.Node]]
            if isinstance(node, yaml.SequenceNode):
                children = [((*path, i), item, item) for i, item in enumerate(node.value)]
            elif isinstance(node, yaml.MappingNode):
                entries = self._entries(node, path)
                children = [((*path, k), key, value) for k, (key, value) in entries.items()]
                name = entries.get("name", (None, None))[1]
                in_zones = len(path) == 2 and path[0] == "zones" and isinstance(path[1], int)
                if in_zones and isinstance(name, yaml.ScalarNode) and name.tag == _STR_TAG:
                    self.zone_names[int(path[1])] = str(name.value)
            else:
                continue
            for child_path, marker, child in reversed(children):  # pop in document order,
                self.lines[child_path] = _line(marker)  # so an anchor is met before its aliases
                stack.append((child_path, child))

    def _entries(
        self, node: yaml.MappingNode, path: _Path
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        """The mapping's keys as constructed: its own, then `<<` merges for keys it lacks."""
        report = id(node) not in self._checked  # an aliased mapping is walked once per use
        self._checked.add(id(node))
        own: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        merged: list[yaml.Node] = []
        for key, value in node.value:
            if key.tag == _MERGE_TAG:
                merged.extend(value.value if isinstance(value, yaml.SequenceNode) else [value])
            elif not (isinstance(key, yaml.ScalarNode) and key.tag == _STR_TAG):
                if report:
                    self.problems.append(_Problem(path, _line(key), _non_text_key(key)))
            elif key.value in own:
                if report:
                    first = _line(own[key.value][0])
                    message = (
                        f"duplicate key `{key.value}` (first on line {first}, again on line "
                        f"{_line(key)}); YAML would silently keep only the last one"
                    )
                    self.problems.append(_Problem((*path, key.value), _line(key), message))
            else:
                own[key.value] = (key, value)
        for other in merged:
            if isinstance(other, yaml.MappingNode):  # anything else: the constructor says so
                for key_text, entry in self._entries(other, path).items():
                    own.setdefault(key_text, entry)
        return own


_TOO_MANY_VALUES = (
    f"the YAML expands to more than {_MAX_VALUES:,} values through anchors and aliases "
    "(a `billion laughs` document?)"
)
_TOO_DEEP = f"the YAML nests more than {_MAX_DEPTH} levels deep (or an alias contains itself)"


def _non_text_key(key: yaml.Node) -> str:
    if not isinstance(key, yaml.ScalarNode):
        return "a key must be text, not a list or mapping"
    tag = key.tag.rsplit(":", 1)[-1]
    kind = {
        "bool": "boolean",
        "int": "number",
        "float": "number",
        "null": "null value",
        "timestamp": "date",
    }.get(tag, tag)
    return f'a key must be text, but YAML reads `{key.value}` as a {kind}; quote it ("{key.value}")'


def _loader(text: str) -> _MarkedLoader:
    try:
        return _MarkedLoader(text)
    except yaml.reader.ReaderError as exc:  # a control character, e.g. a NUL byte
        line = text.count("\n", 0, exc.position) + 1
        message = f"the control character U+{exc.character:04X} is not allowed in YAML"
        raise _Invalid([_Problem(None, line, message)]) from None


def _read_yaml(loader: _MarkedLoader) -> Any:
    try:
        return loader.load_marked()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = None if mark is None else int(mark.line) + 1
        column = "" if mark is None else f" (column {int(mark.column) + 1})"
        raise _Invalid([_Problem(None, line, f"{_yaml_message(exc)}{column}")]) from None
    except RecursionError:  # PyYAML composes and merges recursively
        message = "the YAML nests too deeply (or an anchor is merged into itself)"
        raise _Invalid([_Problem(None, None, message)]) from None
    finally:
        loader.dispose()


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's wording for common mistakes, said plainly; anything else as PyYAML says it."""
    problem, context = exc.problem or "", exc.context or ""
    opened = "" if exc.context_mark is None else f" on line {int(exc.context_mark.line) + 1}"
    if "'\\t'" in problem:
        return "a tab character: YAML indents with spaces only"
    if problem == "mapping values are not allowed here":
        return "unexpected `:`; check this line's indentation, or quote a value that contains `: `"
    if context.startswith("while parsing a flow sequence"):
        return f"the `[`{opened} is not closed by `]` (or an item lacks its `,`)"
    if context.startswith("while parsing a flow mapping"):
        return f"the `{{`{opened} is not closed by `}}` (or an entry lacks its `,`)"
    if context.startswith("while scanning a quoted scalar"):
        return f"the quoted text that starts{opened} is never closed"
    if context.startswith("while parsing a block"):
        return "this line's indentation does not match the lines above it"
    if context.startswith("expected a single document"):
        return "the file holds more than one YAML document (a second `---`); gradgate reads one"
    if problem.startswith("could not determine a constructor for the tag"):
        tag = problem.rsplit(" ", 1)[-1].strip("'").replace("tag:yaml.org,2002:", "!!")
        return f"the tag `{tag}` is not allowed; write plain YAML values"
    return f"cannot read the YAML: {problem or context}"


# ---------------------------------------------------------------------------------------------
# pydantic's errors, said in the YAML's terms


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


def _annotation_at(loc: _Path) -> Any:
    """The declared type of the value at `loc` in Config, or None where the schema has none."""
    current: Any = Config
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


def _expected(annotation: Any) -> str:
    if annotation is Config:
        return "a mapping with the keys " + ", ".join(_keys(Config))
    if annotation is Zone:
        return "a zone (a mapping with the keys " + ", ".join(_keys(Zone)) + ")"
    if annotation is ChecksConfig:
        return "a mapping from check names to their settings"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "a mapping of settings (" + ", ".join(_keys(annotation)) + ")"
    if get_origin(annotation) is tuple:
        return "a list of zones" if _strip(get_args(annotation)[0]) is Zone else "a list of strings"
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


_NOT_EMPTY = {"paths": "must list at least one pattern", "markers": "must list at least one marker"}


def _explain(error: ErrorDetails, loc: _Path, lines: dict[_Path, int]) -> str:
    kind, value, ctx = error["type"], error["input"], error.get("ctx", {})
    last = loc[-1] if loc else None
    if loc == ("version",):
        if isinstance(value, int) and not isinstance(value, bool):
            return f"unsupported `version: {value}`; this version of gradgate reads `version: 1`"
        return _type_mismatch("the whole number 1", value)
    if kind == "extra_forbidden":
        parent = _annotation_at(loc[:-1])
        allowed = _keys(parent) if isinstance(parent, type) else []
        hint = _did_you_mean(str(last), allowed)
        if parent is ChecksConfig:
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
        return _type_mismatch(_expected(_annotation_at(loc)), value)
    message = error["msg"]
    return message[:1].lower() + message[1:]


def _problems(exc: ValidationError, lines: dict[_Path, int]) -> list[_Problem]:
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
        problems.append(_Problem(loc, line, _explain(error, loc, lines), rank))
    return problems


def _line_at(path: _Path, lines: dict[_Path, int]) -> int | None:
    while path not in lines and path:
        path = path[:-1]  # a missing key: the line of the mapping that lacks it
    return lines.get(path)


def _key_path(path: _Path, zone_names: dict[int, str]) -> str:
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


def _config_error(problems: list[_Problem], source: str, zone_names: dict[int, str]) -> ConfigError:
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


# ---------------------------------------------------------------------------------------------
# The API


def load_config(text: str, *, source: str = CONFIG_FILENAME) -> Config:
    """Parse and validate `.gradgate.yml` text. An empty file is the default Config (no zones).

    Raises ConfigError naming `source`, the first problem's key path and line, and listing every
    other problem found in the same pass.
    """
    zone_names: dict[int, str] = {}  # filled as the YAML is walked; named in key paths
    try:
        loader = _loader(text)
        zone_names = loader.zone_names
        data = _read_yaml(loader)
        if data is None:
            return Config()
        if not isinstance(data, dict):
            got = _got(data)
            message = f"the top level must be {_expected(Config)}; got {got}"
            raise _Invalid([_Problem((), loader.lines.get(()), message)])
        try:
            return Config.model_validate(data, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise _Invalid(_problems(exc, loader.lines)) from None
    except _Invalid as invalid:
        raise _config_error(invalid.problems, source, zone_names) from None


def config_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of `.gradgate.yml`, keys spelled as in YAML, for editors."""
    schema = Config.model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
        "title": "gradgate configuration (.gradgate.yml)",
    }


def config_hash(text: str) -> str:
    """A short hash of the config text, shown in the report so a verdict names its policy."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


# ---------------------------------------------------------------------------------------------
# The starter file for `gradgate init`

_MODEL_DIRS = {"model", "models"}
_MODEL_FILE = re.compile(r"model(ing)?[^/]*\.py")
_CONFIG_DIRS = {"configs", "config", "conf"}
_DOC_DIRS = {"docs", "doc"}
_SKIPPED_DIRS = {"tests", "test"}  # a `tests/models/` folder holds tests, not the model
_LOOSE_YAML_LISTED = 10  # more loose YAML files than this: one glob per extension instead


def _literal(path: str) -> str:
    """A gitignore pattern that matches exactly `path` from the repository root."""
    # The leading `/` anchors it at the root and makes a leading `!` or `#` literal.
    escaped = re.sub(r"([\\*?\[\]])", r"\\\1", path)
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    return f"/{escaped}"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _first_dir(parts: list[str], names: set[str]) -> str | None:
    for depth, part in enumerate(parts[:-1]):
        if part in names:
            return "/".join(parts[: depth + 1])
    return None


def _guess(paths: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """Patterns for the model code, the configs and the docs found among `paths`."""
    model_dirs: set[str] = set()
    model_files: set[str] = set()
    config_dirs: set[str] = set()
    yaml_files: set[str] = set()
    docs: set[str] = set()
    for path in paths:
        parts = path.split("/")
        if any(p.startswith(".") or p in _SKIPPED_DIRS for p in parts):
            continue  # .github/, .gradgate.yml, tests/
        if (found := _first_dir(parts, _MODEL_DIRS)) is not None:
            model_dirs.add(found)
        elif _MODEL_FILE.fullmatch(parts[-1]):
            model_files.add(path)
        if (found := _first_dir(parts, _CONFIG_DIRS)) is not None:
            config_dirs.add(found)
        elif parts[-1].endswith((".yaml", ".yml")):
            yaml_files.add(path)
        if len(parts) > 1 and parts[0] in _DOC_DIRS:
            docs.add(f"{parts[0]}/**")
        elif parts[-1].upper().startswith("README"):
            docs.add(parts[-1])  # unanchored on purpose: every README of that name
    model = [f"{_literal(d)}/**" for d in sorted(model_dirs)] + sorted(map(_literal, model_files))
    configs = [f"{_literal(d)}/**" for d in sorted(config_dirs)]
    if len(yaml_files) > _LOOSE_YAML_LISTED:
        configs += [*sorted({"*." + f.rsplit(".", 1)[1] for f in yaml_files}), "!.*"]
    else:
        configs += sorted(map(_literal, yaml_files))
    return model, configs, sorted(docs, key=lambda d: (d.endswith("/**"), d))


_MODEL_CHECKS = [
    "    checks:",
    "      - protected",
    "      # Not yet available in this version of gradgate; uncomment when they are:",
    "      # - gradient    # parameters that learned still get finite, non-zero gradients",
    "      # - checkpoint  # checkpoints saved before still load, and mean the same",
]
_CONFIG_DOCS_CHECKS = [
    "    # Not yet available in this version of gradgate; uncomment when it is:",
    "    # checks:",
    "    #   - config-docs  # README and docs agree with the configs and code defaults",
]


def _zone_lines(name: str, about: str, patterns: list[str], checks: list[str]) -> list[str]:
    return [
        f"  # {about}",
        f"  - name: {name}",
        "    paths:",
        *(f"      - {_quoted(p)}" for p in patterns),
        *checks,
        "    # Who reviews changes here (GitHub users or teams); shown in the report:",
        '    # owners: ["@your-org/your-team"]',
    ]


def _setting_lines(check: str) -> list[str]:
    settings = Config().settings_for(check)
    lines = [f"#   {check}:"]
    fields = type(settings).model_fields
    own_first = sorted(fields, key=lambda name: name in CheckSettings.model_fields)
    for name in own_first:
        field = fields[name]
        value = getattr(settings, name)
        shown = json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)
        lines += [f"#     # {field.description}", f"#     {name}: {shown}"]
    return lines


def starter_config(paths: Sequence[str]) -> str:
    """The commented `.gradgate.yml` that `gradgate init` writes for a repository whose tracked
    files are `paths`: zones guessed from the model code, configs and docs it finds there."""
    model, configs, docs = _guess(paths)
    zones: list[str] = []
    if model:
        zones += _zone_lines(
            "model-core",
            "The model code. Edit the patterns if the guess missed a file.",
            model,
            _MODEL_CHECKS,
        )
    if configs and docs:
        zones += [""] if zones else []
        zones += _zone_lines(
            "config-docs",
            "Configs, and the docs that describe them.",
            configs + docs,
            _CONFIG_DOCS_CHECKS,
        )
    if zones:
        zone_intro = [
            "# These zones were guessed from the files in this repository; check them.",
            "zones:",
        ]
    else:
        zone_intro = [
            "# No model code or configs were found, so there are no zones yet. A zone looks like:",
            "#   - name: model-core",
            '#     paths: ["src/my_model/**", "!src/my_model/experimental/**"]',
            "#     checks: [protected]",
            "zones: []",
        ]
    lines = [
        "# gradgate: which parts of this repository are protected, and what a pull request that",
        "# touches them must pass. gradgate reads this file from the pull request's base branch,",
        "# so a change to it takes effect once it is merged.",
        "# Every key is explained in gradgate's config.example.yaml; `gradgate schema` prints the",
        "# JSON Schema that editors use to complete and check this file.",
        "",
        "# The format of this file; 1 is the only version so far.",
        "version: 1",
        "",
        "# Checks that run on every pull request, whatever it touches. `protected` reports edits",
        "# to lines marked with a marker comment such as `# NO_REFAC` (see `markers` below).",
        "always:",
        "  - protected",
        "",
        "# Zones: named sets of files, as gitignore-style patterns (a leading `!` excludes), and",
        "# the checks a change to any of those files requires.",
        *zone_intro,
        *zones,
        "",
        "# Settings of each check. These are the defaults; uncomment the lines to change them.",
        "# checks:",
        *_setting_lines("protected"),
    ]
    return "\n".join(lines) + "\n"
