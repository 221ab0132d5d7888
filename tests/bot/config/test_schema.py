"""bot.config.schema: the JSON Schema of `.gradgate.yml`, and config.example.yaml against it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from gradgate.bot.config.model import load_config
from gradgate.bot.config.schema import config_schema
from gradgate.checks import REGISTRY

EXAMPLE = Path(__file__).resolve().parents[3] / "config.example.yaml"


_KEYWORDS = {
    "$schema", "$defs", "$ref", "title", "description", "type", "properties", "required",
    "additionalProperties", "items", "default", "enum", "pattern", "minItems", "minimum",
    "maximum", "exclusiveMinimum", "anyOf", "minLength", "minProperties",
}  # fmt: skip
_TYPES = {"object", "array", "string", "integer", "number", "boolean", "null"}


def _subschemas(schema: dict[str, Any]) -> list[dict[str, Any]]:
    found = [schema]
    for key in ("properties", "$defs"):
        for sub in schema.get(key, {}).values():
            found += _subschemas(sub)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            found += _subschemas(schema[key])
    for sub in schema.get("anyOf", []):
        found += _subschemas(sub)
    return found


def _resolve(root: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        assert schema["$ref"].startswith("#/$defs/")
        schema = root["$defs"][schema["$ref"].removeprefix("#/$defs/")]
    return schema


def _property_paths(
    root: dict[str, Any], schema: dict[str, Any], prefix: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    """Every property path of the schema: ('zones', 'paths'), ('checks', 'protected', ...)..."""
    schema = _resolve(root, schema)
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return _property_paths(root, schema["items"], prefix)
    paths = []
    for name, sub in schema.get("properties", {}).items():
        paths.append((*prefix, name))
        paths += _property_paths(root, sub, (*prefix, name))
    return paths


def test_schema_is_well_formed_json_schema() -> None:
    schema = config_schema()

    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads(json.dumps(schema)) == schema
    for sub in _subschemas(schema):
        assert set(sub) <= _KEYWORDS, set(sub) - _KEYWORDS
        assert sub.get("type", "object") in _TYPES
        if "$ref" in sub:
            _resolve(schema, sub)
        for name in sub.get("required", []):
            assert name in sub["properties"]
        if "pattern" in sub:
            re.compile(sub["pattern"])


def test_schema_uses_yaml_spellings_and_describes_every_key() -> None:
    schema = config_schema()
    paths = _property_paths(schema, schema)

    assert ("checks", "config-docs") in paths and ("checks", "api-contract") in paths
    # Check names are spelled as in YAML (`config-docs`, not `config_docs`).
    assert not any("_" in path[1] for path in paths if path[0] == "checks" and len(path) == 2)
    for path in paths:
        node = schema
        for part in path:
            node = _resolve(schema, node)
            node = _resolve(schema, node["items"]) if node.get("type") == "array" else node
            node = node["properties"][part]
        assert node.get("description"), f"{'.'.join(path)} has no description"
    for name, definition in schema["$defs"].items():
        assert definition.get("description"), f"{name} has no description"


def test_schema_rejects_unknown_keys_and_lists_check_names_for_editors() -> None:
    schema = config_schema()

    objects = [s for s in _subschemas(schema) if "properties" in s]
    assert objects and all(s["additionalProperties"] is False for s in objects)
    zone = schema["$defs"]["Zone"]
    assert zone["required"] == ["name", "paths"]
    assert zone["properties"]["checks"]["items"]["enum"] == list(REGISTRY)
    assert schema["properties"]["always"]["items"]["enum"] == list(REGISTRY)


# ---------------------------------------------------------------------------------------------
# config.example.yaml


def test_example_config_loads() -> None:
    config = load_config(EXAMPLE.read_text(encoding="utf-8"), source="config.example.yaml")

    assert [z.name for z in config.zones] == ["model-core", "config-docs"]


def test_example_config_sets_every_key_of_the_schema() -> None:
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    schema = config_schema()

    def present(value: Any, path: tuple[str, ...]) -> bool:
        if not path:
            return True
        if isinstance(value, list):
            return any(present(item, path) for item in value)
        return isinstance(value, dict) and path[0] in value and present(value[path[0]], path[1:])

    missing = [".".join(p) for p in _property_paths(schema, schema) if not present(data, p)]
    assert missing == []


def test_example_config_explains_every_key_with_its_default_or_that_it_is_required() -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    schema = config_schema()

    for path in _property_paths(schema, schema):
        key = path[-1]
        at = next(
            i for i, line in enumerate(lines) if re.match(rf"\s*(- )?{re.escape(key)}:", line)
        )
        above = []
        for line in reversed(lines[:at]):
            if not line.strip().startswith("#"):
                break
            above.append(line)
        comment = " ".join(above)
        assert comment, f"`{key}` (line {at + 1}) has no comment above it"
        assert "Default" in comment or "Required" in comment, f"`{key}` does not say its default"


def test_example_config_says_which_checks_are_not_yet_available() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")

    for name, check in REGISTRY.items():
        block = text.split(f"\n  # {name}:", 1)[1].split("\n\n", 1)[0]
        assert ("Not yet available" in block) == (not check.available), name
