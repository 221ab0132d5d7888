"""bot.config.model: YAML -> Config; errors that name key path and line; the config hash."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from gradgate.bot.config.model import Config, config_hash, load_config
from gradgate.checks import REGISTRY
from gradgate.checks.errors import ConfigError


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
        "the top level must be a mapping with the keys version, zones, always, checks, python, "
        "model, data, runners, gradient-sensitive, sandbox, cache, report, trust; got a list",
    ),
    ("top-level-text", "\n\njust some text\n", None, 3, "the top level must be a mapping"),
    (
        "unknown-top-level-key",
        "version: 1\nzone: []\n",
        "zone",
        2,
        "unknown key `zone`; did you mean `zones`? "
        "(allowed: version, zones, always, checks, python, model, data, runners, "
        "gradient-sensitive, sandbox, cache, report, trust)",
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
        "pattern-empty",
        _zone("    paths: ['']\n"),
        "zones[0] (name: m).paths[0]",
        3,
        "`` is not a valid gitignore pattern",
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
        "(known checks: protected, gradient, checkpoint, behaviour, data, config-docs, "
        "api-contract, dl-lint, metrics, perf, commands)",
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
        "misspelt-gradient-setting",
        "checks:\n  gradient:\n    devices: [cuda]\n",
        "checks.gradient.devices",
        3,
        "unknown key `devices`; did you mean `device`? (allowed: timeout_s, memory_mb, disk_mb, "
        "network, env_allow, model, device, seed, steps, gained, allow)",
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
    (
        "review-mode-unknown",
        "version: 1\nreport:\n  review: approve\n",
        "report.review",
        3,
        "'off', 'comment' or 'request-changes'",
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


@pytest.mark.timeout(30)  # expanded, it would take hours; refused, milliseconds
def test_billion_laughs_is_refused_quickly() -> None:
    error = _error(BILLION_LAUGHS)

    assert "expands to more than 50,000 values through anchors, aliases" in error.message


# Nine levels, each merging the level below nine times: 9**9 merges, in well under 1 KB.
MERGE_KEY_BOMB = "m0: &m0 {k: v}\n" + "".join(
    f"m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 9)}]}}\n" for i in range(1, 10)
)


@pytest.mark.timeout(30)
def test_a_merge_key_bomb_counts_against_the_alias_budget() -> None:
    assert len(MERGE_KEY_BOMB) < 1000
    error = _error(MERGE_KEY_BOMB)

    assert "expands to more than 50,000 values through anchors, aliases and merge keys" in (
        error.message
    )


def test_a_long_config_without_anchors_is_not_blamed_on_anchors() -> None:
    zones = "".join(
        f"  - name: z{i}\n    paths: [src/z{i}/**, docs/z{i}.md]\n    checks: [protected]\n"
        for i in range(10_000)
    )
    config = load_config("zones:\n" + zones)

    assert len(config.zones) == 10_000
    assert config.zones[-1].paths == ("src/z9999/**", "docs/z9999.md")


@pytest.mark.timeout(30)
def test_an_alias_inside_its_own_anchor_is_refused_quickly() -> None:
    error = _error("x: &a [*a]\n")

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
        "did you mean `protected`? (known checks: protected, gradient, checkpoint, behaviour, "
        "data, config-docs, api-contract, dl-lint, metrics, perf, commands)",
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
    assert config.report.review == "off"


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


def test_config_hash_is_short_and_depends_on_the_text() -> None:
    assert config_hash(VALID) == config_hash(VALID)
    assert len(config_hash(VALID)) == 12
    assert config_hash(VALID) != config_hash(VALID + "\n")
