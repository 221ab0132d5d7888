"""Settings of the `gradient` check (`checks.gradient` in .gradgate.yml)."""

from __future__ import annotations

from typing import Literal

from gradgate.checks.model.settings import ModelCheckSettings
from pydantic import BaseModel, ConfigDict, Field


class AllowRule(BaseModel):
    """An intentional change: findings about matching parameters become notes with the reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: str = Field(
        min_length=1,
        description=(
            "Parameter names, as a glob where `*` also crosses dots: `backbone.*`, "
            "`*.lora_A.weight`."
        ),
    )
    reason: str = Field(
        min_length=1, description="Why the change is intended; shown in the report."
    )


class GradientSettings(ModelCheckSettings):
    """Settings of the `gradient` check."""

    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto",
        description=(
            "Where the model runs: `auto` (CUDA when torch can use it, else CPU), `cpu`, or "
            "`cuda` (an error, not a CPU run, where CUDA is not available)."
        ),
    )
    seed: int = Field(
        default=0, ge=0, strict=True, description="Seed for the model, the batch and the loss."
    )
    steps: int = Field(
        default=2,
        ge=1,
        le=100,
        strict=True,
        description=(
            "Optimizer steps (plain SGD) per revision; a parameter is dead only if its "
            "gradient is missing or zero at every step (zero-initialised gates learn at step 1)."
        ),
    )
    gained: Literal["note", "warning", "blocking"] = Field(
        default="warning",
        description=(
            "How much a parameter weighs that learned nothing at base (detached, under "
            "no_grad, zero, never run) and learns at head: a removed `.detach()` makes a layer "
            "train, and what downstream code sees moves."
        ),
    )
    allow: tuple[AllowRule, ...] = Field(
        default=(),
        description="Intentional changes (a deliberate freeze): parameter patterns and why.",
    )
