"""The `model:` block of `.gradgate.yml`: how the model checks build the user's model and inputs.

Shared by every model check (gradient, checkpoint): the top-level block, or a check's own
`model:` under `checks:`, which replaces it for that check (see ``checks.model.settings``).
Pure pydantic: no torch, nothing imported from the user's code here.
"""

from __future__ import annotations

from typing import Annotated, Any

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.outcome import parse_target
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

TARGET_KEY = "_target_"  # Hydra's spelling, so a Hydra user's config snippets work as they are
ARGS_KEY = "_args_"  # positional arguments of a `_target_` call
_INPUTS_SCHEMA = {"anyOf": [{"type": "object"}, {"type": "array"}, {"type": "null"}]}


def _entrypoint(text: str) -> str:
    try:
        parse_target(text)
    except SandboxError:
        raise ValueError(
            f"`{text}` is not an entrypoint: write `package.module:function` or "
            "`path/to/file.py:function`"
        ) from None
    return text


def _check_spec(value: Any, where: str) -> None:
    """Every `_target_` in a nested spec names a dotted object, `_args_` is a list."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            _check_spec(item, f"{where}[{index}]")
        return
    if not isinstance(value, dict):
        return
    if TARGET_KEY in value:
        target = value[TARGET_KEY]
        parts = target.split(".") if isinstance(target, str) else []
        if len(parts) < 2 or not all(part.isidentifier() for part in parts):
            raise ValueError(
                f"`{TARGET_KEY}` at {where} must name an object as `package.module.Name`, "
                f"got {target!r}"
            )
        if ARGS_KEY in value and not isinstance(value[ARGS_KEY], list):
            raise ValueError(f"`{ARGS_KEY}` at {where} must be a list of positional arguments")
    for key, item in value.items():
        _check_spec(item, f"{where}.{key}")


class ModelSpec(BaseModel):
    """How to build the model (and an example batch) at each revision."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entrypoint: str | None = Field(
        default=None,
        description=(
            "`package.module:function` (importable from the repository root) or "
            "`path/to/file.py:function`, found in the revision being tested, else next to a "
            "config given with --config. It returns the model, `(model, inputs)`, or a mapping "
            "with `model`, `inputs` and optionally `loss` (a callable on the outputs); or a "
            "mapping of named variants (`{default: ..., flash: ...}`), each one of those: the "
            "gradient check checks every variant, the other model checks the first."
        ),
    )
    build: dict[str, Any] | None = Field(
        default=None,
        description=(
            "Instead of `entrypoint`: the model as a Hydra-style spec, `_target_: "
            "package.module.Class` plus its keyword arguments (nested specs are built first; "
            "`_args_` lists positional arguments)."
        ),
    )
    inputs: Annotated[Any, WithJsonSchema(_INPUTS_SCHEMA)] = Field(
        default=None,
        description=(
            "The example batch, as a spec: one `_target_` (a tensor, or a tuple of positional "
            "arguments), a list (positional arguments) or a mapping of keyword arguments, each "
            "a value or a `_target_` spec. Replaces the inputs the factory returns. Default: "
            "the factory's inputs, else the model's `example_input_array`."
        ),
    )

    @field_validator("entrypoint")
    @classmethod
    def _valid_entrypoint(cls, value: str | None) -> str | None:
        return None if value is None else _entrypoint(value)

    @field_validator("build")
    @classmethod
    def _valid_build(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        if TARGET_KEY not in value:
            raise ValueError(f"a `build` spec needs `{TARGET_KEY}: package.module.Class`")
        _check_spec(value, "build")
        return value

    @field_validator("inputs")
    @classmethod
    def _valid_inputs(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, dict | list):
            raise ValueError(
                "expected a `_target_` spec, a list of positional arguments or a mapping of "
                f"keyword arguments, got {type(value).__name__} `{value}`"
            )
        _check_spec(value, "inputs")
        return value

    @model_validator(mode="after")
    def _one_way_to_build(self) -> ModelSpec:
        if (self.entrypoint is None) == (self.build is None):
            raise ValueError(
                "give exactly one of `entrypoint` (a Python factory) and `build` "
                f"(a `{TARGET_KEY}` spec)"
            )
        return self

    def as_request(self) -> dict[str, Any]:
        """What the child needs besides the entrypoint, which travels as the sandbox target."""
        return {"build": self.build, "inputs": self.inputs}
