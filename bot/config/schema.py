"""The JSON Schema of `.gradgate.yml` (`gradgate schema`), in the YAML spellings, for editors."""

from __future__ import annotations

from typing import Any

from gradgate.bot.config.model import Config


def config_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of `.gradgate.yml`, keys spelled as in YAML, for editors."""
    schema = Config.model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
        "title": "gradgate configuration (.gradgate.yml)",
    }
