"""Settings of the `data` check (`checks.data` in .gradgate.yml)."""

from __future__ import annotations

from typing import Literal

from gradgate.checks.base import UserCodeSettings
from pydantic import BaseModel, ConfigDict, Field

# The kinds of difference the check names; an `allow` rule covers one of them, or `any`.
ChangeKind = Literal[
    "input",
    "outputs",
    "shape",
    "batch",
    "layout",
    "dtype",
    "channel-order",
    "geometry",
    "value-range",
    "normalization",
    "values",
    "labels",
]
AllowKind = Literal[
    "input",
    "outputs",
    "shape",
    "batch",
    "layout",
    "dtype",
    "channel-order",
    "geometry",
    "value-range",
    "normalization",
    "values",
    "labels",
    "any",
]


class AllowRule(BaseModel):
    """An intentional change: matching differences become notes with the reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    change: AllowKind = Field(
        description=(
            "The kind of difference: `channel-order`, `layout`, `batch`, `shape`, `dtype`, "
            "`value-range`, `normalization`, `geometry`, `values` (any other difference in "
            "values), `labels` (a dataset's targets or class-index mapping), `outputs` "
            "(outputs added or removed), `input` (the input type the transform accepts), or "
            "`any`."
        ),
    )
    output: str = Field(
        default="*",
        min_length=1,
        description="Which outputs, as a glob on their names (`output`, `output.image`).",
    )
    reason: str = Field(
        min_length=1, description="Why the change is intended; shown in the report."
    )


class DataSettings(UserCodeSettings):
    """Settings of the `data` check."""

    seed: int = Field(
        default=0,
        ge=0,
        strict=True,
        description="Seed for `random`, NumPy and torch before each call of the transform.",
    )
    tolerance: float = Field(
        default=1e-5,
        ge=0,
        strict=True,
        allow_inf_nan=False,
        description=(
            "Largest absolute difference between base's and head's output values that still "
            "counts as equal."
        ),
    )
    allow: tuple[AllowRule, ...] = Field(
        default=(),
        description="Intentional changes (a deliberate switch to RGB): the kind and why.",
    )
