"""The `checks.checkpoint` block of `.gradgate.yml`: references, migrations, equivalence."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from gradgate.checks.model.settings import ModelCheckSettings
from pydantic import BaseModel, ConfigDict, Field, field_validator

_FROZEN = ConfigDict(extra="forbid", frozen=True)


class Reference(BaseModel):
    """A checkpoint file the head model must keep loading."""

    model_config = _FROZEN

    path: str = Field(
        min_length=1,
        description=(
            "The checkpoint file: a path in the repository (read at the PR's base revision, so a "
            "PR cannot swap its own reference) or an absolute path on the machine that runs "
            "gradgate (for big files, or weights kept out of git)."
        ),
    )
    format: Literal["auto", "safetensors", "pt"] = Field(
        default="auto",
        description=(
            "`safetensors`, `pt` (anything torch.save wrote: zip `.pt/.pth/.bin`, or the legacy "
            "format), or `auto`: recognised from the file's content, not its name."
        ),
    )
    key: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "For torch.save files that hold more than the state dict (`{'model': ..., "
            "'optimizer': ...}`): where the state dict is, `model`, or `ckpt/model` for nested "
            "dicts. Default: the top level if it is a state dict, else the first of "
            "`state_dict`, `model_state_dict`, `model`, `module`, `net`, `network`."
        ),
    )


class Equivalence(BaseModel):
    """Behavioural equivalence: base weights loaded into the head model give base's outputs."""

    model_config = _FROZEN

    enabled: bool = Field(
        default=True,
        strict=True,
        description=(
            "Build the base model with seeded real weights, load its state dict into the head "
            "model (after `migrations`) and compare outputs on the factory's example inputs."
        ),
    )
    atol: float = Field(default=1e-5, ge=0, allow_inf_nan=False, description="Absolute tolerance.")
    rtol: float = Field(default=1e-4, ge=0, allow_inf_nan=False, description="Relative tolerance.")
    max_parameters: int = Field(
        default=50_000_000,
        gt=0,
        strict=True,
        description=(
            "Skip the comparison (with a note) for models with more parameters than this: it "
            "builds the model with real weights twice."
        ),
    )


class KeyAllowRule(BaseModel):
    """An intended break: findings about matching state-dict keys become notes with the reason."""

    model_config = _FROZEN

    keys: str = Field(
        min_length=1,
        description=(
            "State-dict keys, as a regular expression (Python `re.search`): `^head\\.`, "
            "`\\.bias$`. A finding is accepted when every key it names matches."
        ),
    )
    reason: str = Field(
        min_length=1, description="Why the change is intended; shown in the report."
    )

    @field_validator("keys")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"`{value}` is not a regular expression: {exc}") from None
        return value


def _reference(value: Any) -> Any:
    return {"path": value} if isinstance(value, str) else value


class CheckpointSettings(ModelCheckSettings):
    """Settings of the `checkpoint` check."""

    references: tuple[Reference, ...] = Field(
        default=(),
        description=(
            "Checkpoint files to stay compatible with; each a path, or a mapping with `path`, "
            "`format` and `key`."
        ),
    )
    from_base: bool | None = Field(
        default=None,
        description=(
            "Also check a checkpoint as the base revision's model would save it, derived from "
            "that model built on the meta device (no file needed). Default: true when there "
            "are no `references`, else false."
        ),
    )
    migrations: dict[str, str | None] = Field(
        default_factory=dict,
        description=(
            "The key map your code applies when it loads old checkpoints: regular expression "
            "-> replacement (Python `re.sub`, `\\1` for groups), applied to every key in order; "
            "a null replacement drops the keys it matches. A model's own "
            "`_load_from_state_dict` or load hooks count without being listed."
        ),
    )
    dtype_changes: Literal["block", "warn"] = Field(
        default="block",
        description=(
            "A key whose dtype differs between checkpoint and model loads with a silent cast: "
            "`block` fails the check, `warn` only warns (for a deliberate move to bf16)."
        ),
    )
    equivalence: Equivalence = Field(
        default_factory=Equivalence, description="Behavioural equivalence with base weights."
    )
    allow: tuple[KeyAllowRule, ...] = Field(
        default=(),
        description=(
            "Intended breaks old checkpoints cannot follow (new parameters, a changed shape): "
            "key patterns and why; their findings become notes with the reason."
        ),
    )
    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto",
        description=(
            "Where the equivalence test runs the model with real weights: `auto` (CUDA when "
            "torch can use it, else CPU), `cpu`, or `cuda` (an error, not a CPU run, where "
            "CUDA is not available). Metadata checks use the meta device either way."
        ),
    )

    @field_validator("references", mode="before")
    @classmethod
    def _paths_as_references(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return [_reference(item) for item in value]
        return value

    @field_validator("equivalence", mode="before")
    @classmethod
    def _switch(cls, value: Any) -> Any:
        return {"enabled": value} if isinstance(value, bool) else value

    @field_validator("migrations")
    @classmethod
    def _valid_migrations(cls, value: Mapping[str, str | None]) -> dict[str, str | None]:
        for pattern, replacement in value.items():
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"`{pattern}` is not a regular expression: {exc}") from None
            if replacement is None:
                continue
            try:
                # re parses the template before matching: bad escapes and groups the
                # pattern lacks fail here even though "" matches nothing.
                compiled.sub(replacement, "")
            except (re.error, IndexError) as exc:
                raise ValueError(
                    f"replacement `{replacement}` for `{pattern}` is invalid: {exc}"
                ) from None
        return dict(value)

    @property
    def checks_base(self) -> bool:
        """Is the base model's own checkpoint one of the references?"""
        return self.from_base if self.from_base is not None else not self.references

    @property
    def rules(self) -> list[tuple[str, str | None]]:
        return list(self.migrations.items())
