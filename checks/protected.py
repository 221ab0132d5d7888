"""The `protected` check: lines marked `# NO_REFAC` (or another marker) must not change."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from checks.base import CheckContext, CheckResult, CheckSettings, not_available


class ProtectedSettings(CheckSettings):
    markers: tuple[str, ...] = Field(
        default=("NO_REFAC", "DON'T TOUCH"),
        min_length=1,
        description="Comment markers that protect the statement they annotate.",
    )


class ProtectedCheck:
    name: ClassVar[str] = "protected"
    title: ClassVar[str] = "Protected lines"
    settings_model: ClassVar[type[CheckSettings]] = ProtectedSettings
    runs_user_code: ClassVar[bool] = False
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:  # placeholder until implemented
        return not_available(self.name)
