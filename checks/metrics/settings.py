"""Settings of the `metrics` check (`checks.metrics` in .gradgate.yml)."""

from __future__ import annotations

from typing import Annotated, Literal

from gradgate.checks.model.settings import ModelCheckSettings
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_validator

# `>= 0.85`, `<= 200`, `> 0`, `< 1e-3`, `== 1`: an operator and a finite number.
ABSOLUTE_PATTERN = r"^\s*(>=|<=|>|<|==)\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$"

AbsoluteRule = Annotated[
    str,
    Field(
        pattern=ABSOLUTE_PATTERN,
        description="A bound on the head's value: `>= 0.85`, `<= 200` (also `>`, `<`, `==`).",
    ),
]


class RelativeRule(BaseModel):
    """A bound on the change from base to head, in the metric's own units."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_drop: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="Head may be at most this much lower than base (for higher-is-better).",
    )
    max_rise: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="Head may be at most this much higher than base (for lower-is-better).",
    )

    @model_validator(mode="after")
    def _one_bound(self) -> RelativeRule:
        if self.max_drop is None and self.max_rise is None:
            raise ValueError("give `max_drop` or `max_rise` (or both)")
        return self


Rule = AbsoluteRule | RelativeRule

# What gradgate measures itself; one value so far. (A one-value Literal's schema is `const`,
# which the editors' schema keeps out: an `enum` says the same.)
Measured = Annotated[Literal["latency"], WithJsonSchema({"enum": ["latency"], "type": "string"})]


class LatencySettings(BaseModel):
    """How gradgate times inference itself for `measure: latency`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    runs: int = Field(
        default=50, ge=5, le=10_000, strict=True, description="Timed calls per child."
    )
    warmup: int = Field(
        default=5, ge=0, le=1000, strict=True, description="Calls per child run and discarded."
    )
    rounds: int = Field(
        default=2,
        ge=1,
        le=20,
        strict=True,
        description=(
            "Rounds of one base and one head child each, in alternating order (ABBA...); "
            "each revision's p50 and p95 are over all its timed calls."
        ),
    )


class MetricsSettings(ModelCheckSettings):
    """Settings of the `metrics` check."""

    entrypoint: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "Your eval: `path/to/file.py:function` or `package.module:function` returning a "
            "mapping of named numbers, or `path/to/script.py`, a script that writes a JSON "
            "object of named numbers to the file named in $GRADGATE_METRICS_FILE. "
            "Required to run the check, unless `measure` gives every ruled metric."
        ),
    )
    rules: dict[str, Rule | tuple[Rule, ...]] = Field(
        default_factory=dict,
        description=(
            'Metric name -> its rule (or a list of rules): absolute (`accuracy: ">= 0.85"`) '
            "or relative to base (`accuracy: {max_drop: 0.005}`). Required to run the check."
        ),
    )
    seed: int | None = Field(
        default=0,
        ge=0,
        strict=True,
        description="Seed for random, numpy and torch before the eval runs; null: not seeded.",
    )
    measure: Measured | None = Field(
        default=None,
        description=(
            "`latency`: gradgate times inference itself (`eval()` + `no_grad` forward of the "
            "model from `model:` on its inputs) and adds `latency_ms_p50` and `latency_ms_p95` "
            "at each revision, for rules to hold."
        ),
    )
    latency: LatencySettings = Field(
        default_factory=LatencySettings, description="Runs, warm-up and rounds of `measure`."
    )
    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto",
        description=(
            "Where `measure: latency` runs the model: `auto` (CUDA when torch can use it, else "
            "CPU), `cpu`, or `cuda` (an error where CUDA is not available)."
        ),
    )
