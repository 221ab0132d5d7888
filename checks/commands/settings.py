"""Settings of the `commands` check (`checks.commands` in .gradgate.yml)."""

from __future__ import annotations

from typing import Literal

from gradgate.checks.base import UserCodeSettings
from gradgate.checks.config_docs.settings import Pattern
from pydantic import BaseModel, ConfigDict, Field


class Shrink(BaseModel):
    """What makes one command tiny: words added after the script's own, and variables."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    args: tuple[str, ...] = Field(
        default=(),
        description=(
            "Words added after the command's own (`--max_iters=1`, `--device=cpu`, "
            "`trainer.max_steps=1`); a later `--key=value` wins in argparse and in nanoGPT's "
            "configurator, a later Hydra override too."
        ),
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Environment variables for the command (`WANDB_MODE: disabled`).",
    )
    prepare: str | None = Field(
        default=None,
        description=(
            "A command run first, in the same sandbox, that makes the data the command needs "
            "(`python data/shakespeare_char/prepare.py`); without one, a command that wants a "
            "file the repository does not have is reported as needing data."
        ),
    )


class CommandsSettings(UserCodeSettings):
    """Settings of the `commands` check."""

    docs: tuple[Pattern, ...] = Field(
        default=("README.md", "docs/**/*.md"),
        description=(
            "gitignore-style patterns of the Markdown files whose commands are run: each "
            "`python` script, `python -m` module of the project and `torchrun` launch in a "
            "shell block or an inline code span."
        ),
    )
    run: tuple[str, ...] = Field(
        default=(),
        description="Commands to run besides the documented ones, as a reader would type them.",
    )
    exclude: tuple[str, ...] = Field(
        default=(),
        description=(
            "Commands not to run: the command as written, or the script (`prepare.py`, "
            "`data/openwebtext/prepare.py`) or module it runs."
        ),
    )
    overrides: dict[str, Shrink] = Field(
        default_factory=dict,
        description=(
            "What makes each command tiny, by the command as written or by its script or "
            "module (`train.py`); the command's own entry wins. `gradgate init` proposes them "
            "from each script's argument parser."
        ),
    )
    command_timeout_s: float = Field(
        default=300.0,
        gt=0,
        strict=True,
        allow_inf_nan=False,
        description=(
            "Wall-clock limit for one run of one command (with its `prepare`), in seconds."
        ),
    )
    processes: int = Field(
        default=2,
        ge=1,
        le=8,
        strict=True,
        description=(
            "Processes a `torchrun --nproc_per_node=N` command runs with, on the CPU's gloo "
            "backend, so that rank and world-size mistakes show."
        ),
    )
    device: Literal["auto", "cpu"] = Field(
        default="cpu",
        description=(
            "`cpu`: no GPU is visible to the commands, as on a reader's laptop; `auto`: the "
            "runner's GPUs are, where it has any."
        ),
    )
