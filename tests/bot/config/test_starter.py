"""bot.config.starter: the `.gradgate.yml` that `gradgate init` proposes loads and guesses zones."""

from __future__ import annotations

import re

import pathspec
import pytest
import yaml
from gradgate.bot.config.model import Config, load_config
from gradgate.bot.config.starter import starter_config

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
