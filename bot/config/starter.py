"""The starter `.gradgate.yml` that `gradgate init` proposes: zones guessed from a file list.

starter_config(paths)   the commented file, rendered from templates/starter.gradgate.yml.j2
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from gradgate.bot.config.model import Config
from gradgate.bot.templates import render_template
from gradgate.checks.base import CheckSettings

_MODEL_DIRS = {"model", "models"}
_MODEL_FILE = re.compile(r"model(ing)?[^/]*\.py")
_CONFIG_DIRS = {"configs", "config", "conf"}
_DOC_DIRS = {"docs", "doc"}
_SKIPPED_DIRS = {"tests", "test"}  # a `tests/models/` folder holds tests, not the model
_LOOSE_YAML_LISTED = 10  # more loose YAML files than this: one glob per extension instead
_SHOWN_CHECK = "protected"  # the only check with settings worth showing so far


def starter_config(paths: Sequence[str]) -> str:
    """The commented `.gradgate.yml` that `gradgate init` writes for a repository whose tracked
    files are `paths`: zones guessed from the model code, configs and docs it finds there."""
    model, configs, docs = _guess(paths)
    return render_template(
        "starter.gradgate.yml.j2",
        model=[_quoted(p) for p in model],
        config_docs=[_quoted(p) for p in configs + docs] if configs and docs else [],
        check=_SHOWN_CHECK,
        settings=_settings(_SHOWN_CHECK),
    )


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


def _first_dir(parts: list[str], names: set[str]) -> str | None:
    for depth, part in enumerate(parts[:-1]):
        if part in names:
            return "/".join(parts[: depth + 1])
    return None


def _literal(path: str) -> str:
    """A gitignore pattern that matches exactly `path` from the repository root."""
    # The leading `/` anchors it at the root and makes a leading `!` or `#` literal.
    escaped = re.sub(r"([\\*?\[\]])", r"\\\1", path)
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    return f"/{escaped}"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _settings(check: str) -> list[tuple[str, str | None, str]]:
    """(name, description, default as YAML) of each setting of `check`, its own before shared."""
    settings = Config().settings_for(check)
    fields = type(settings).model_fields
    own_first = sorted(fields, key=lambda name: name in CheckSettings.model_fields)
    shown = []
    for name in own_first:
        value = getattr(settings, name)
        default = json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)
        shown.append((name, fields[name].description, default))
    return shown
