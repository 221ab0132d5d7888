"""bot.config: YAML -> Config, errors that name key path and line, the schema, the starter file."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pathspec
import pytest
import yaml

from bot.config import Config, config_hash, config_schema, load_config, starter_config
from bot.errors import ConfigError
from checks import REGISTRY

EXAMPLE = Path(__file__).resolve().parents[1] / "config.example.yaml"


def _error(text: str, **kwargs: Any) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config(text, **kwargs)
    return caught.value


def _zone(body: str, name: str = "m") -> str:
    """A one-zone config starting on line 2; `body` holds the zone's other keys, indented 4."""
    return f"zones:\n  - name: {name}\n{body}"


# (id, text, key path, line, a fragment of the message)
MALFORMED = [
    # YAML that does not parse: no key path, the line (and column) of the YAML error.
    (
        "bad-indentation",
        "version: 1\n  zones: []\n",
        None,
        2,
        "unexpected `:`; check this line's indentation",
    ),
    (
        "unclosed-bracket",
        _zone("    paths: [a, b\n    checks: []\n"),
        None,
        4,
        "the `[` on line 3 is not closed by `]`",
    ),
    (
        "tab-indentation",
        "zones:\n\t- name: m\n",
        None,
        2,
        "a tab character: YAML indents with spaces only",
    ),
    (
        "unclosed-quote",
        "zones:\n  - name: 'model\n",
        None,
        3,
        "the quoted text that starts on line 2 is never closed",
    ),
    (
        "control-character",
        "version: 1\nzones: [\x00]\n",
        None,
        2,
        "the control character U+0000 is not allowed in YAML",
    ),
    ("two-documents", "version: 1\n---\nversion: 1\n", None, 2, "more than one YAML document"),
    (
        "python-tag",
        "version: !!python/object/apply:os.system ['true']\n",
        None,
        1,
        "the tag `!!python/object/apply:os.system` is not allowed",
    ),
    # The shape of the document.
    (
        "top-level-list",
        "- zones\n- always\n",
        None,
        1,
        "the top level must be a mapping with the keys version, zones, always, checks; got a list",
    ),
    ("top-level-text", "\n\njust some text\n", None, 3, "the top level must be a mapping"),
    (
        "unknown-top-level-key",
        "version: 1\nzone: []\n",
        "zone",
        2,
        "unknown key `zone`; did you mean `zones`? (allowed: version, zones, always, checks)",
    ),
    (
        "duplicate-top-level-key",
        "version: 1\nalways: []\nversion: 1\n",
        "version",
        3,
        "duplicate key `version` (first on line 1, again on line 3)",
    ),
    (
        "key-read-as-boolean",
        "version: 1\non: push\n",
        None,
        2,
        "a key must be text, but YAML reads `on` as a boolean; quote it",
    ),
    (
        "version-2",
        "version: 2\n",
        "version",
        1,
        "unsupported `version: 2`; this version of gradgate reads `version: 1`",
    ),
    (
        "version-as-text",
        'version: "1"\n',
        "version",
        1,
        'expected the whole number 1, got a string (`"1"`)',
    ),
    # Zones.
    (
        "zone-is-text",
        "zones:\n  - encoder\n",
        "zones[0]",
        2,
        "expected a zone (a mapping with the keys name, paths, checks, owners, description), "
        "got a string",
    ),
    (
        "zones-empty-value",
        "zones:\n",
        "zones",
        1,
        "expected a list of zones, got an empty value; write `[]` for an empty list",
    ),
    (
        "unknown-zone-key",
        _zone("    pathz: [models/**]\n", "encoder"),
        "zones[0] (name: encoder).pathz",
        3,
        "unknown key `pathz`; did you mean `paths`? "
        "(allowed: name, paths, checks, owners, description)",
    ),
    (
        "zone-without-paths",
        _zone("    checks: [protected]\n", "encoder"),
        "zones[0] (name: encoder).paths",
        2,
        "missing required key `paths`",
    ),
    (
        "zone-without-name",
        "zones:\n  - paths: [models/**]\n",
        "zones[0].name",
        2,
        "missing required key `name`",
    ),
    (
        "empty-paths",
        _zone("    paths: []\n"),
        "zones[0] (name: m).paths",
        3,
        "must list at least one pattern",
    ),
    (
        "paths-as-string",
        _zone("    paths: models/**\n"),
        "zones[0] (name: m).paths",
        3,
        'expected a list of strings, got a string (`"models/**"`); '
        'write a list, e.g. `["models/**"]`',
    ),
    (
        "pattern-pathspec-rejects",
        _zone("    paths:\n      - models/**\n      - 'models\\'\n"),
        "zones[0] (name: m).paths[1]",
        5,
        "`models\\` is not a valid gitignore pattern",
    ),
    (
        "pattern-bad-range",
        _zone("    paths: ['data/[z-a].pt']\n"),
        "zones[0] (name: m).paths[0]",
        3,
        "`data/[z-a].pt` is not a valid gitignore pattern",
    ),
    (
        "pattern-is-a-comment",
        _zone("    paths: ['#models']\n"),
        "zones[0] (name: m).paths[0]",
        3,
        "`#models` is a comment in gitignore syntax and matches nothing",
    ),
    (
        "pattern-blank",
        _zone("    paths: ['  ']\n"),
        "zones[0] (name: m).paths[0]",
        3,
        "a pattern must not be blank",
    ),
    (
        "only-negated-patterns",
        _zone("    paths:\n      - '!models/**'\n      - '!docs/**'\n"),
        "zones[0] (name: m).paths",
        3,
        "every pattern starts with `!`, which only excludes",
    ),
    (
        "pattern-is-a-number",
        _zone("    paths:\n      - models/**\n      - 42\n"),
        "zones[0] (name: m).paths[1]",
        5,
        "expected a string, got a number (`42`)",
    ),
    (
        "unknown-check-in-zone",
        _zone("    paths: [models/**]\n    checks:\n      - protected\n      - gradiant\n"),
        "zones[0] (name: m).checks[1]",
        6,
        "unknown check `gradiant`; did you mean `gradient`? "
        "(known checks: protected, gradient, checkpoint, config-docs, api-contract)",
    ),
    (
        "checks-as-string",
        _zone("    paths: [models/**]\n    checks: protected\n"),
        "zones[0] (name: m).checks",
        4,
        "expected a list of strings, got a string",
    ),
    (
        "duplicate-zone-name",
        "zones:\n  - name: enc\n    paths: [a/**]\n  - name: enc\n    paths: [b/**]\n",
        "zones[1] (name: enc).name",
        4,
        "zone name `enc` is already used by zones[0] (line 2)",
    ),
    (
        "duplicate-key-in-zone",
        _zone("    paths: [a/**]\n    checks: []\n    paths: [b/**]\n"),
        "zones[0] (name: m).paths",
        5,
        "duplicate key `paths` (first on line 3, again on line 5); "
        "YAML would silently keep only the last one",
    ),
    (
        "name-is-a-number",
        "zones:\n  - name: 42\n    paths: [a/**]\n",
        "zones[0].name",
        2,
        "expected a string, got a number (`42`)",
    ),
    (
        "name-bad-characters",
        _zone("    paths: [a/**]\n", "model core"),
        "zones[0] (name: model core).name",
        2,
        'zone name "model core" may use only letters, digits, `_`, `.` and `-`',
    ),
    (
        "owner-is-boolean",
        _zone("    paths: [a/**]\n    owners: [yes]\n"),
        "zones[0] (name: m).owners[0]",
        4,
        "got a boolean (`true`); YAML reads unquoted yes/no/on/off/true/false as booleans",
    ),
    # always.
    (
        "unknown-check-in-always",
        "always:\n  - protectd\n",
        "always[0]",
        2,
        "unknown check `protectd`; did you mean `protected`?",
    ),
    (
        "always-as-string",
        "always: protected\n",
        "always",
        1,
        "expected a list of strings, got a string",
    ),
    # Check settings.
    (
        "markers-wrong-type",
        "checks:\n  protected:\n    markers: NO_REFAC\n",
        "checks.protected.markers",
        3,
        'expected a list of strings, got a string (`"NO_REFAC"`)',
    ),
    (
        "markers-empty",
        "checks:\n  protected:\n    markers: []\n",
        "checks.protected.markers",
        3,
        "must list at least one marker",
    ),
    (
        "marker-only-whitespace",
        "checks:\n  protected:\n    markers:\n      - NO_REFAC\n      - '   '\n",
        "checks.protected.markers[1]",
        5,
        "a marker must contain text, not only whitespace",
    ),
    (
        "negative-timeout",
        "checks:\n  protected:\n    timeout_s: -5\n",
        "checks.protected.timeout_s",
        3,
        "must be greater than 0, got -5",
    ),
    (
        "timeout-as-text",
        "checks:\n  gradient:\n    timeout_s: '600'\n",
        "checks.gradient.timeout_s",
        3,
        'expected a number, got a string (`"600"`)',
    ),
    (
        "timeout-infinite",
        "checks:\n  protected:\n    timeout_s: .inf\n",
        "checks.protected.timeout_s",
        3,
        "must be a finite number, got inf",
    ),
    (
        "unknown-key-in-protected",
        "checks:\n  protected:\n    marker: [NO_REFAC]\n",
        "checks.protected.marker",
        3,
        "unknown key `marker`; did you mean `markers`? (allowed: timeout_s, markers)",
    ),
    (
        "setting-of-a-pending-check",
        "checks:\n  gradient:\n    devices: [cuda]\n",
        "checks.gradient.devices",
        3,
        "unknown key `devices` (allowed: timeout_s)",
    ),
    (
        "unknown-check-block",
        "checks:\n  gradiant: {}\n",
        "checks.gradiant",
        2,
        "unknown check `gradiant`; did you mean `gradient`? (known checks: protected, gradient",
    ),
    (
        "check-block-python-spelling",
        "checks:\n  config_docs: {}\n",
        "checks.config_docs",
        2,
        "unknown check `config_docs`; did you mean `config-docs`?",
    ),
    (
        "check-block-empty",
        "checks:\n  protected:\n",
        "checks.protected",
        2,
        "got an empty value; leave the key out to use the defaults, or write `{}`",
    ),
]


@pytest.mark.parametrize(
    ("text", "key_path", "line", "fragment"),
    [c[1:] for c in MALFORMED],
    ids=[c[0] for c in MALFORMED],
)
def test_malformed_config_names_key_path_and_line(
    text: str, key_path: str | None, line: int, fragment: str
) -> None:
    error = _error(text)

    assert (error.key_path, error.line) == (key_path, line)
    assert fragment in error.message
    where = f".gradgate.yml:{line}: invalid config"
    assert str(error).startswith(where + (f" at `{key_path}`: " if key_path else ": "))


def test_malformed_table_covers_at_least_twenty_cases() -> None:
    assert len(MALFORMED) >= 20


def test_every_problem_is_reported_with_its_line_and_the_first_by_line_leads() -> None:
    text = (
        "zones:\n"
        "  - name: encoder\n"
        "    pathz: [models/**]\n"  # 3
        "  - name: decoder\n"
        "    paths: [dec/**]\n"
        "    checks: [gradiant]\n"  # 6
        "always: [protectd]\n"  # 7
        "checks:\n"
        "  protected:\n"
        "    timeout_s: 0\n"  # 10
    )
    error = _error(text)

    assert (error.key_path, error.line) == ("zones[0] (name: encoder).pathz", 3)
    first, summary, *rest = error.message.splitlines()
    assert first.startswith("unknown key `pathz`; did you mean `paths`?")
    assert summary == "4 more problems:"
    assert [line.strip().split("`: ")[0] + "`" for line in rest] == [
        ".gradgate.yml:2 at `zones[0] (name: encoder).paths`",  # missing: after the zone's own keys
        ".gradgate.yml:6 at `zones[1] (name: decoder).checks[0]`",
        ".gradgate.yml:7 at `always[0]`",
        ".gradgate.yml:10 at `checks.protected.timeout_s`",
    ]


def test_error_names_the_given_source_and_is_only_the_message() -> None:
    error = _error("version: 2\n", source="configs/gradgate.yml")

    assert error.source == "configs/gradgate.yml"
    assert str(error) == (
        "configs/gradgate.yml:1: invalid config at `version`: "
        "unsupported `version: 2`; this version of gradgate reads `version: 1`"
    )
    assert error.__cause__ is None and error.__suppress_context__  # no pydantic/PyYAML chain


def test_duplicate_key_inside_an_aliased_mapping_is_reported_once() -> None:
    text = "x-shared: &shared\n  name: a\n  name: b\nzones: [*shared, *shared]\n"
    error = _error(text)

    assert (error.key_path, error.line) == ("x-shared.name", 3)
    assert "more problem" not in error.message


# Nine levels of nine aliases each: 9**9 (387 million) strings once expanded.
BILLION_LAUGHS = "l0: &l0 lol\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 10)
)


def test_billion_laughs_is_refused_quickly() -> None:
    started = time.perf_counter()
    error = _error(BILLION_LAUGHS)

    assert time.perf_counter() - started < 5
    assert "expands to more than 50,000 values through anchors and aliases" in error.message


def test_an_alias_inside_its_own_anchor_is_refused_quickly() -> None:
    started = time.perf_counter()
    error = _error("x: &a [*a]\n")

    assert time.perf_counter() - started < 5
    assert error.message == "the YAML nests more than 50 levels deep (or an alias contains itself)"


@pytest.mark.parametrize(
    "text", ["x: &a {<<: *a}\n", "[" * 5000 + "]" * 5000], ids=["merge-into-itself", "deep-nesting"]
)
def test_pathological_nesting_is_a_config_error(text: str) -> None:
    assert "nests too deeply" in _error(text).message


MERGED = """\
zones:
  - &zone
    name: encoder
    owners: ['@ml-team']
    checks: [protected]
    paths: [shared/**]
  - <<: *zone
    name: decoder
    paths: [dec/**]
"""


def test_anchors_aliases_and_merge_keys_are_allowed() -> None:
    config = load_config(MERGED)

    assert [(z.name, z.paths, z.owners, z.checks) for z in config.zones] == [
        ("encoder", ("shared/**",), ("@ml-team",), ("protected",)),
        ("decoder", ("dec/**",), ("@ml-team",), ("protected",)),
    ]


def test_error_in_a_merged_value_points_at_the_line_that_wrote_it() -> None:
    error = _error(MERGED.replace("[protected]", "[protectd]"))

    assert (error.key_path, error.line) == ("zones[0] (name: encoder).checks[0]", 5)
    assert error.message.splitlines()[1:] == [
        "1 more problem:",
        "  .gradgate.yml:5 at `zones[1] (name: decoder).checks[0]`: unknown check `protectd`; "
        "did you mean `protected`? (known checks: protected, gradient, checkpoint, config-docs, "
        "api-contract)",
    ]


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n# and another\n", "---\n", "~\n"])
def test_empty_file_is_the_default_config(text: str) -> None:
    assert load_config(text) == Config()


def test_defaults_are_no_zones_protected_always_and_each_checks_defaults() -> None:
    config = Config()

    assert (config.version, config.zones, config.always) == (1, (), ("protected",))
    protected = config.settings_for("protected")
    assert protected.model_dump() == {"timeout_s": 600.0, "markers": ("NO_REFAC", "DON'T TOUCH")}
    for name in REGISTRY:
        assert config.settings_for(name).timeout_s == 600.0


VALID = """\
version: 1
always: [protected, api-contract]
zones:
  - name: model-core
    description: The model.
    paths: ["src/model/**", "!src/model/experimental/**", "src/layers.py"]
    checks: [protected, gradient, checkpoint]
    owners: ["@ml-team"]
  - name: config-docs
    paths: ["configs/**", "README.md"]
    checks: [config-docs]
checks:
  protected:
    markers: ["NO_REFAC", "FROZEN"]
    timeout_s: 30
  config-docs:
    timeout_s: 12.5
"""


def test_valid_config_loads_into_frozen_values() -> None:
    config = load_config(VALID)

    assert config.always == ("protected", "api-contract")
    assert config.zones[0].paths == ("src/model/**", "!src/model/experimental/**", "src/layers.py")
    assert config.zones[1].owners == ()
    assert config.settings_for("protected").model_dump() == {
        "timeout_s": 30.0,
        "markers": ("NO_REFAC", "FROZEN"),
    }
    assert config.settings_for("config-docs").timeout_s == 12.5
    assert config.settings_for("gradient").timeout_s == 600.0
    with pytest.raises(ValueError, match="frozen"):
        config.zones[0].name = "other"


def test_valid_config_round_trips_through_yaml_in_its_own_spellings() -> None:
    config = load_config(VALID)
    dumped = yaml.safe_dump(json.loads(config.model_dump_json(by_alias=True)), sort_keys=False)

    assert "config-docs:" in dumped and "config_docs" not in dumped
    assert load_config(dumped) == config


# ---------------------------------------------------------------------------------------------
# The JSON Schema

_KEYWORDS = {
    "$schema", "$defs", "$ref", "title", "description", "type", "properties", "required",
    "additionalProperties", "items", "default", "enum", "pattern", "minItems", "minimum",
    "maximum", "exclusiveMinimum", "anyOf",
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
    assert not any("_" in part and part != "timeout_s" for path in paths for part in path)
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


# ---------------------------------------------------------------------------------------------
# starter_config

NANOGPT = [
    ".github/workflows/ci.yml",
    ".gitignore",
    "README.md",
    "config/train_gpt2.py",
    "configs/small.yaml",
    "configs/large.yaml",
    "docs/usage.md",
    "model.py",
    "sample.py",
    "tests/models/test_gpt.py",
    "train.py",
]


@pytest.mark.parametrize(
    ("paths", "zones"),
    [
        pytest.param([], [], id="empty-repo"),
        pytest.param(["train.py", "LICENSE"], [], id="nothing-recognised"),
        pytest.param(
            NANOGPT,
            [
                ("model-core", ("/model.py",), ("protected",)),
                ("config-docs", ("/config/**", "/configs/**", "README.md", "docs/**"), ()),
            ],
            id="nanogpt-like",
        ),
        pytest.param(
            ["src/pkg/models/gpt.py", "src/pkg/models/layers/attn.py", "src/pkg/modeling_bert.py"],
            [("model-core", ("/src/pkg/models/**", "/src/pkg/modeling_bert.py"), ("protected",))],
            id="models-package-no-docs",
        ),
        pytest.param(
            ["configs/a.yaml"],
            [],
            id="configs-without-docs",
        ),
        pytest.param(
            ["README.md", *(f"exp/run{i}.yaml" for i in range(11)), ".github/ci.yaml"],
            [("config-docs", ("*.yaml", "!.*", "README.md"), ())],
            id="many-loose-yaml-files",
        ),
        pytest.param(
            ["!odd/model.py", "#hash/model.py", "model [v2].py", "trailing /model.py"],
            [
                (
                    "model-core",
                    (
                        "/!odd/model.py",
                        "/#hash/model.py",
                        "/model \\[v2\\].py",
                        "/trailing /model.py",
                    ),
                    ("protected",),
                )
            ],
            id="names-that-need-escaping",
        ),
    ],
)
def test_starter_config_loads_and_guesses_zones_from_the_files(
    paths: list[str], zones: list[tuple[str, tuple[str, ...], tuple[str, ...]]]
) -> None:
    config = load_config(starter_config(paths), source="starter")

    assert [(z.name, z.paths, z.checks) for z in config.zones] == zones
    assert config.always == ("protected",)
    assert config == Config(zones=config.zones)  # every setting is left at its default


def test_starter_config_zone_patterns_match_exactly_the_files_they_were_guessed_from() -> None:
    paths = [
        "!odd/model.py",
        "#hash/model.py",
        "model [v2].py",
        "trailing /model.py",
        "src/model.py",
    ]
    zone = load_config(starter_config(paths)).zones[0]
    spec = pathspec.GitIgnoreSpec.from_lines(zone.paths)

    assert [p for p in [*paths, "model v.py", "x/!odd/model.py"] if spec.match_file(p)] == paths


def test_starter_config_lists_the_model_checks_commented_out_as_not_yet_available() -> None:
    text = starter_config(["models/gpt.py", "configs/a.yaml", "README.md"])

    assert "      - protected\n      # Not yet available in this version of gradgate" in text
    assert re.search(r"^      # - gradient +# ", text, re.M)
    assert re.search(r"^      # - checkpoint +# ", text, re.M)
    assert re.search(r"^    #   - config-docs +# ", text, re.M)


def test_starter_config_always_shows_the_markers_block_with_the_defaults() -> None:
    text = starter_config([])

    assert "# checks:\n#   protected:\n#     # Comment markers" in text
    assert '#     markers: ["NO_REFAC", "DON\'T TOUCH"]' in text
    uncommented = re.sub(r"^# ?", "", text.split("# checks:", 1)[1], flags=re.M)
    settings = yaml.safe_load("checks:" + uncommented)
    assert load_config(yaml.safe_dump(settings)) == Config()


@pytest.mark.parametrize("paths", [[], NANOGPT], ids=["empty-repo", "nanogpt-like"])
def test_starter_config_explains_every_line(paths: list[str]) -> None:
    lines = starter_config(paths).splitlines()

    for number, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#") or line.startswith(" "):
            continue
        # a top-level key: a comment sits right above it
        assert lines[number - 1].startswith("#"), f"line {number + 1} `{line}` is not explained"
    assert all(len(line) <= 100 for line in lines)


def test_config_hash_is_short_and_depends_on_the_text() -> None:
    assert config_hash(VALID) == config_hash(VALID)
    assert len(config_hash(VALID)) == 12
    assert config_hash(VALID) != config_hash(VALID + "\n")
