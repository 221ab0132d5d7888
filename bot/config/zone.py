"""A zone of `.gradgate.yml`: a name, gitignore patterns (validated as pathspec compiles them), the
checks a change inside it requires, and its owners. `model` re-exports these names.
"""

from __future__ import annotations

import re
from typing import Annotated

from gradgate.bot.config.errors import did_you_mean
from gradgate.bot.config.patterns import gitignore_regex
from gradgate.checks import REGISTRY
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

_FROZEN = ConfigDict(extra="forbid", frozen=True)


def known_check(name: str) -> str:
    if name not in REGISTRY:
        known = ", ".join(REGISTRY)
        raise ValueError(
            f"unknown check `{name}`{did_you_mean(name, REGISTRY)} (known checks: {known})"
        )
    return name


def _gitignore_pattern(pattern: str) -> str:
    # The pattern as `GitIgnoreSpec.from_lines` compiles it, without building a whole spec (its
    # matching backend) per pattern and per zone: ~25 ms on a 500-pattern config, every plan.
    try:
        if not pattern:  # from_lines skips "" (it would match nothing); a zone must not
            raise ValueError(pattern)
        regex, include = gitignore_regex(pattern)
        # pathspec escapes every character but a bracket expression's, so only `[...]` can make
        # a regex `re` refuses ([z-a]): compiling the others here (~0.2 ms each) found nothing.
        if regex is not None and "[" in pattern:
            re.compile(regex)  # as GitIgnoreSpecPattern(pattern) would
    except (ValueError, re.error):  # re.error for [z-a]
        raise ValueError(f"`{pattern}` is not a valid gitignore pattern") from None
    if include is None:  # gitignore syntax silently ignores the line
        if not pattern.strip():
            raise ValueError("a pattern must not be blank")
        if pattern.startswith("#"):
            raise ValueError(
                f"`{pattern}` is a comment in gitignore syntax and matches nothing; "
                f"write `\\{pattern}` to match a name that starts with `#`"
            )
        raise ValueError(f"`{pattern}` is not a valid gitignore pattern; it would match nothing")
    return pattern


CheckName = Annotated[
    str, AfterValidator(known_check), WithJsonSchema({"type": "string", "enum": list(REGISTRY)})
]
GitignorePattern = Annotated[str, AfterValidator(_gitignore_pattern)]


class Zone(BaseModel):
    """A named set of paths and the checks a change inside it requires."""

    model_config = _FROZEN

    name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        description="Zone name: letters, digits, `_`, `.` and `-`; unique in the file.",
    )
    paths: tuple[GitignorePattern, ...] = Field(
        min_length=1,
        description="gitignore-style patterns; a leading `!` excludes inside the zone.",
    )
    checks: tuple[CheckName, ...] = Field(
        default=(), description="Checks required when any file of the zone changes."
    )
    owners: tuple[str, ...] = Field(default=(), description="Teams or users, e.g. `@ml-team`.")
    description: str | None = Field(
        default=None, description="What the zone holds and why it is protected, for the report."
    )

    @field_validator("paths")
    @classmethod
    def _includes_something(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        # Each pattern is valid by now, so pathspec's own rule applies: a leading `!` excludes.
        if all(p.startswith("!") for p in value):
            raise ValueError(
                "every pattern starts with `!`, which only excludes; "
                "add at least one pattern that includes files"
            )
        return value
