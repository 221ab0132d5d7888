"""The top-level `data:` block of `.gradgate.yml`: where the `data` check finds the transform.

Pure pydantic: no torch, nothing imported from the user's code here.
"""

from __future__ import annotations

from typing import Annotated, Any

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.outcome import parse_target
from pydantic import BaseModel, ConfigDict, Field, field_validator


class DataSpec(BaseModel):
    """The function that returns the data transform at each revision."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entrypoint: str = Field(
        description=(
            "`package.module:function` (importable from the repository root) or "
            "`path/to/file.py:function`, found in the revision being tested, else next to a "
            "config given with --config. Called with no arguments, it returns the transform (a "
            "callable: image, array or tensor in; tensor, array or mapping of them out), a "
            "`Dataset` (a `torch.utils.data.Dataset`, or any object with `__getitem__` and "
            "`__len__` that is not callable), a tuple `(dataset, indices)`, or a mapping with "
            "`transform` or `dataset` and optionally `inputs` (a list of your own inputs for "
            "the transform; default: gradgate's synthetic image) or `indices`."
        ),
    )
    indices: tuple[Annotated[int, Field(ge=0, strict=True)], ...] | None = Field(
        default=None,
        min_length=1,
        description=(
            "Which items of a dataset to read, when the entrypoint does not say. Default: the "
            "first 8 (or all, if fewer)."
        ),
    )

    @field_validator("entrypoint")
    @classmethod
    def _valid_entrypoint(cls, value: str) -> str:
        try:
            parse_target(value)
        except SandboxError:
            raise ValueError(
                f"`{value}` is not an entrypoint: write `package.module:function` or "
                "`path/to/file.py:function`"
            ) from None
        return value

    def as_request(self) -> dict[str, Any]:
        """What the child needs besides the entrypoint, which travels as the sandbox target."""
        return {} if self.indices is None else {"indices": list(self.indices)}
