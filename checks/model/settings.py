"""The settings every model check shares, and the one rule for which `model:` block applies.

A check's own `model:` (under `checks:`) replaces the top-level `model:` for that check, whole:
the two are not merged, so what runs is always one block as written.
"""

from __future__ import annotations

from gradgate.checks.base import UserCodeSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import CheckError
from gradgate.checks.model.spec import ModelSpec
from pydantic import Field


class ModelCheckSettings(UserCodeSettings):
    """Settings of a check that builds the user's model: the sandbox's, plus its own `model:`."""

    model: ModelSpec | None = Field(
        default=None,
        description=(
            "This check's own model block, with the keys of the top-level `model:`; it "
            "replaces the top-level block for this check. Default: the top-level block."
        ),
    )


def effective_model(ctx: CheckContext, *, check: str) -> ModelSpec:
    """The check's own `model:` if it has one, else the top-level one; CheckError if neither."""
    own = getattr(ctx.settings, "model", None)
    if isinstance(own, ModelSpec):
        return own
    if ctx.model is not None:
        return ctx.model
    raise CheckError(
        f"`{check}` needs your model, and .gradgate.yml has no `model:` block: add one with "
        "`entrypoint: path/to/file.py:function` (a function that returns the model and an "
        "example batch) or a `build:` spec; config.example.yaml shows every option"
    )
