"""Intended signature changes: `checks.api-contract.allow`, and the rule a finding hands over.

Like every allow rule, one counts only as it is in `.gradgate.yml` at base: a PR cannot accept
its own break (DESIGN, trust). A rule names functions by qualified name, the way `watch` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase

from gradgate.checks.paste import allow_yaml
from pydantic import BaseModel, ConfigDict, Field

# Where the rule must live for it to count (issue 36): a rule the PR itself adds is not read.
WHERE = (
    "it counts once it is in `.gradgate.yml` on the base branch (merged to the base branch "
    "first, or applied by an owner)"
)


class AllowRule(BaseModel):
    """An intended signature change: its findings become notes that carry the reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: str = Field(
        min_length=1,
        description=(
            "Qualified names of functions or methods, as for `watch`: `mypkg.utils.default`, "
            "`mypkg.losses.*`."
        ),
    )
    reason: str = Field(
        min_length=1, description="Why the change is intended; shown in the report."
    )


def matches(full: str, patterns: Iterable[str]) -> bool:
    """Does a pattern match the qualified name, or a dotted suffix of it (`src/` layouts)?"""
    parts = full.split(".")
    suffixes = [".".join(parts[i:]) for i in range(len(parts))]
    return any(fnmatchcase(s, p) for p in patterns for s in suffixes)


def allowing(rules: Sequence[AllowRule], full: str) -> AllowRule | None:
    return next((rule for rule in rules if matches(full, [rule.pattern])), None)


def accept_yaml(full: str) -> str:
    """The rule that accepts a change of ``full``, ready to paste."""
    return allow_yaml("api-contract", [full])
