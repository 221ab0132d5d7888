"""Settings of the `behaviour` check (`checks.behaviour` in .gradgate.yml)."""

from __future__ import annotations

from typing import Literal

from gradgate.checks.model.settings import ModelCheckSettings
from pydantic import BaseModel, ConfigDict, Field

Probe = Literal["eval-random", "eval-state", "causality", "same-weights"]


class VariantSettings(BaseModel):
    """What one variant of the model (`default` for a factory's one model) opts out of."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    skip: tuple[Probe, ...] = Field(
        default=(),
        description=(
            "Probes that do not apply to this variant: `eval-random` (eval output does not "
            "depend on the random state), `eval-state` (an eval forward changes no buffer), "
            "`causality` (outputs up to position t do not depend on inputs after t), "
            "`same-weights` (base's weights in head's model compute what they did)."
        ),
    )
    sequence_dim: int = Field(
        default=1,
        ge=0,
        strict=True,
        description=(
            "The inputs' sequence dimension, for the causality probe (the first input with "
            "at least two positions there is changed after its middle)."
        ),
    )


class AllowRule(BaseModel):
    """An intended change of behaviour: findings about matching modules become notes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: str = Field(
        min_length=1,
        description=(
            "The module a finding names, as a glob where `*` also crosses dots: `h.*.attn`; "
            "`<model>` for the model's own forward, `<loss>` for the loss."
        ),
    )
    reason: str = Field(
        min_length=1, description="Why the change is intended; shown in the report."
    )


class BehaviourSettings(ModelCheckSettings):
    """Settings of the `behaviour` check."""

    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto",
        description=(
            "Where the model runs: `auto` (CUDA when torch can use it, else CPU), `cpu`, or "
            "`cuda` (an error, not a CPU run, where CUDA is not available)."
        ),
    )
    seed: int = Field(
        default=0,
        ge=0,
        strict=True,
        description="Seed of the model's build and of every forward, the same at both revisions.",
    )
    rtol: float = Field(
        default=1e-4,
        gt=0,
        le=0.5,
        allow_inf_nan=False,
        description=(
            "Two tensors agree when they differ by at most `rtol` times the base tensor's "
            "largest magnitude (integer tensors: exactly)."
        ),
    )
    max_parameters: int = Field(
        default=50_000_000,
        gt=0,
        strict=True,
        description=(
            "Above this many parameters the same-weights probes are skipped (they keep base's "
            "weights, gradients and every module's activations); the invariants still run."
        ),
    )
    variants: dict[str, VariantSettings] = Field(
        default_factory=dict,
        description=(
            "Per variant of the model (its name in the factory's mapping; `default` for a "
            "factory's one model): probes that do not apply, and its sequence dimension."
        ),
    )
    allow: tuple[AllowRule, ...] = Field(
        default=(),
        description=(
            "Intended changes of behaviour (a deliberate switch to post-norm): findings about "
            "matching modules become notes that show the reason."
        ),
    )
