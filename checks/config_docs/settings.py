"""Settings of the `config-docs` check: which files are docs, which are configs, which are code."""

from __future__ import annotations

import re
from typing import Annotated

from gradgate.checks.base import CheckSettings
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern
from pydantic import AfterValidator, Field


def _pattern(text: str) -> str:
    try:
        compiled = GitIgnoreSpecPattern(text)
    except (ValueError, re.error):
        raise ValueError(f"`{text}` is not a valid gitignore pattern") from None
    if compiled.include is None:
        raise ValueError(f"`{text}` is blank or a comment in gitignore syntax; it matches nothing")
    return text


Pattern = Annotated[str, AfterValidator(_pattern)]


class ConfigDocsSettings(CheckSettings):
    """Settings of the `config-docs` check."""

    docs: tuple[Pattern, ...] = Field(
        default=("README.md", "docs/**/*.md"),
        description="gitignore-style patterns of the Markdown files whose claims are checked.",
    )
    configs: tuple[Pattern, ...] = Field(
        default=("configs/**", "config/**"),
        description=(
            "gitignore-style patterns of the config files that are sources of truth: YAML, "
            "JSON, TOML, and Python modules of `name = value` lines; other files are skipped."
        ),
    )
    code: tuple[Pattern, ...] = Field(
        default=("**/*.py", "!tests/**", "!test/**", "!docs/**"),
        description=(
            "gitignore-style patterns of the Python files whose dataclass field defaults, "
            "argparse/click option defaults and public functions' parameter defaults are "
            "sources of truth, and whose signatures and options the docs' examples must fit "
            "(read, never imported)."
        ),
    )
