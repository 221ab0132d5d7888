"""The `checks.config-docs` block: which files are docs, configs and code."""

from __future__ import annotations

import pytest
from gradgate.bot.config.model import load_config
from gradgate.checks.config_docs.settings import ConfigDocsSettings
from gradgate.checks.errors import ConfigError

from tests.checks.config_docs.pr import blocking, pull_request
from tests.gitrepo import GitRepo

GUIDE = "| option | default |\n|---|---|\n| `lr` | 3e-4 |\n"


def test_the_block_is_read_from_gradgate_yml() -> None:
    config = load_config(
        "checks:\n  config-docs:\n    docs: ['guide/*.md']\n    configs: ['hparams/**']\n"
    )
    settings = config.settings_for("config-docs")
    assert isinstance(settings, ConfigDocsSettings)
    assert settings.docs == ("guide/*.md",)
    assert settings.configs == ("hparams/**",)
    assert settings.code == ConfigDocsSettings().code


def test_a_blank_pattern_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        load_config("checks:\n  config-docs:\n    docs: ['  ']\n")
    assert "checks.config-docs.docs[0]" in str(caught.value)


def test_custom_patterns_choose_the_files(repo: GitRepo) -> None:
    settings = ConfigDocsSettings(docs=("guide/*.md",), configs=("hparams/**",))
    base = {"guide/train.md": GUIDE, "README.md": GUIDE, "hparams/a.toml": "lr = 3e-4\n"}
    result = pull_request(repo, base, {"hparams/a.toml": "lr = 1e-3\n"}, settings=settings)

    assert [(f.file, f.line) for f in blocking(result)] == [("guide/train.md", 3)]


def test_files_outside_the_patterns_are_not_sources(repo: GitRepo) -> None:
    base = {"README.md": GUIDE, "configs/a.toml": "lr = 3e-4\n", "other/b.toml": "lr = 1\n"}
    result = pull_request(repo, base, {"other/b.toml": "lr = 2\n"})

    assert result.findings == ()
