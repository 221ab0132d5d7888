"""Settings of the `perf` check (`checks.perf` in .gradgate.yml)."""

from __future__ import annotations

from typing import Literal

from gradgate.checks.model.settings import ModelCheckSettings
from pydantic import Field


class PerfSettings(ModelCheckSettings):
    """Settings of the `perf` check."""

    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto",
        description=(
            "Where the model runs: `auto` (CUDA when torch can use it, else CPU), `cpu`, or "
            "`cuda` (an error, not a CPU run, where CUDA is not available)."
        ),
    )
    seed: int = Field(default=0, ge=0, strict=True, description="Seed for the model and batch.")
    rounds: int = Field(
        default=5,
        ge=3,
        le=50,
        strict=True,
        description=(
            "Rounds of one base child and one head child each, in alternating order (ABBA...); "
            "the verdict uses the per-round head/base ratios."
        ),
    )
    warmup: int = Field(
        default=2, ge=0, le=100, strict=True, description="Steps per child timed and discarded."
    )
    steps: int = Field(
        default=10, ge=1, le=1000, strict=True, description="Steps per child that are timed."
    )
    threads: int | None = Field(
        default=1,
        ge=1,
        le=256,
        strict=True,
        description=(
            "CPU threads the timed steps may use (`torch.set_num_threads`). One keeps the "
            "timing steady where other jobs share the runner's cores (with two threads, every "
            "op waits for the busier core); null: torch's default, all cores. Not used on CUDA."
        ),
    )
    max_slowdown: float = Field(
        default=1.15,
        gt=1,
        allow_inf_nan=False,
        description=(
            "Head/base step-time ratio that blocks, but only when the whole confidence "
            "interval of the median ratio is above it."
        ),
    )
    confidence: float = Field(
        default=0.95,
        gt=0.5,
        le=0.999,
        allow_inf_nan=False,
        description="Level of the bootstrap confidence interval of the median ratio.",
    )
    max_memory_growth: float = Field(
        default=1.10,
        gt=1,
        allow_inf_nan=False,
        description=(
            "Head/base ratio of a step's peak memory that blocks, when the whole interval is "
            "above it (CUDA: `torch.cuda.max_memory_allocated`; CPU: bytes of tensors alive "
            "at once)."
        ),
    )
    strict: bool = Field(
        default=False,
        strict=True,
        description=(
            "A run too noisy to decide (an interval that straddles the limit) is an error "
            "instead of a note."
        ),
    )
    modules: bool = Field(
        default=True,
        strict=True,
        description=(
            "Time each top-level module's forward (forward hooks, on extra inference passes) "
            "and chart the modules that slowed."
        ),
    )
