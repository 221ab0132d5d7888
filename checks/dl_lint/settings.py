"""Settings of the `dl-lint` check: each rule turned off or re-graded, with the reason why."""

from __future__ import annotations

from difflib import get_close_matches

from gradgate.checks.base import CheckSettings
from gradgate.checks.dl_lint.rules import RULES, Grade
from pydantic import BaseModel, ConfigDict, Field, field_validator

_FROZEN = ConfigDict(extra="forbid", frozen=True)


class RuleSetting(BaseModel):
    """One rule's grade in this repository, and why it differs from gradgate's default."""

    model_config = _FROZEN

    severity: Grade = Field(
        description="`off`, `note`, `warning` or `blocking` (blocking findings fail the gate)."
    )
    reason: str = Field(
        min_length=1,
        description="Why this repository grades the rule so; shown beside each finding.",
    )


class CommentsSetting(BaseModel):
    """The language comments in config files are written in (rule `comment-language`)."""

    model_config = _FROZEN

    language: str = Field(
        pattern=r"^[a-z]{2}$",
        description="An ISO 639-1 code, e.g. `en`; judged by the script comments are written in.",
    )


class DlLintSettings(CheckSettings):
    """Settings of the `dl-lint` check."""

    rules: dict[str, RuleSetting] = Field(
        default_factory=dict,
        description=(
            "Rule id -> `{severity, reason}`: turn a rule off or re-grade it for this "
            "repository (docs/checks/dl-lint.md lists the rules). One line is exempted with a "
            "`# gradgate: ignore[RULE]` comment on it that stands at base: one a pull request "
            "adds counts only once merged."
        ),
    )
    comments: CommentsSetting | None = Field(
        default=None,
        description=(
            "Opt in to rule `comment-language`: comments that config files add must be in "
            "this language (a warning unless `rules` grades it otherwise)."
        ),
    )

    @field_validator("rules")
    @classmethod
    def _known(cls, value: dict[str, RuleSetting]) -> dict[str, RuleSetting]:
        unknown = sorted(set(value) - set(RULES))
        if unknown:
            near = get_close_matches(unknown[0], RULES, n=1)
            hint = f"; did you mean `{near[0]}`?" if near else ""
            known = ", ".join(f"`{r}`" for r in RULES)
            raise ValueError(f"unknown rule `{unknown[0]}`{hint} The rules: {known}")
        return value

    def grade(self, rule: str) -> Grade:
        if rule in self.rules:
            return self.rules[rule].severity
        if rule == "comment-language" and self.comments is not None:
            return "warning"
        return RULES[rule].default
