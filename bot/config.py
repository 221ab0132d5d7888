"""`.gradgate.yml` text -> a frozen, validated Config. Unknown keys are rejected; errors name key and line."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from checks import REGISTRY
from checks.base import CheckSettings

CONFIG_FILENAME = ".gradgate.yml"

_FROZEN = ConfigDict(extra="forbid", frozen=True)


class Zone(BaseModel):
    """A named set of paths and the checks a change inside it requires."""

    model_config = _FROZEN

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", description="Zone name.")
    paths: tuple[str, ...] = Field(
        min_length=1,
        description="gitignore-style patterns; a leading `!` excludes inside the zone.",
    )
    checks: tuple[str, ...] = Field(
        default=(), description="Checks required when any file of the zone changes."
    )
    owners: tuple[str, ...] = Field(default=(), description="Teams or users, e.g. `@ml-team`.")
    description: str | None = None

    @field_validator("checks")
    @classmethod
    def _known_checks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            if name not in REGISTRY:
                known = ", ".join(REGISTRY)
                raise ValueError(f"unknown check `{name}` (known checks: {known})")
        return value


def _checks_model() -> type[BaseModel]:
    fields: dict[str, Any] = {
        name.replace("-", "_"): (
            check.settings_model,
            Field(default_factory=check.settings_model, alias=name),
        )
        for name, check in REGISTRY.items()
    }
    return create_model(  # type: ignore[call-overload, no-any-return]
        "ChecksConfig",
        __config__=ConfigDict(extra="forbid", frozen=True, populate_by_name=True),
        **fields,
    )


ChecksConfig = _checks_model()


class Config(BaseModel):
    model_config = _FROZEN

    version: int = Field(default=1, ge=1, le=1, description="Config format version; only 1.")
    zones: tuple[Zone, ...] = Field(default=(), description="Protected zones.")
    always: tuple[str, ...] = Field(
        default=("protected",),
        description="Checks that run on every change, whatever zones it touches.",
    )
    checks: ChecksConfig = Field(  # type: ignore[valid-type]
        default_factory=ChecksConfig, description="Per-check settings."
    )

    def settings_for(self, check: str) -> CheckSettings:
        value = getattr(self.checks, check.replace("-", "_"))
        assert isinstance(value, CheckSettings)
        return value


def config_hash(text: str) -> str:
    """A short hash of the config text, shown in the report so a verdict names its policy."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
