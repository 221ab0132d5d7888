"""Checks that the design announces but this version cannot run yet; they report `unavailable`."""

from __future__ import annotations

from typing import ClassVar

from gradgate.checks.base import Checking, CheckResult, CheckSettings, not_available
from gradgate.checks.context import CheckContext


class _Pending(Checking[CheckSettings]):
    name: ClassVar[str]
    title: ClassVar[str]
    settings_model: ClassVar[type[CheckSettings]] = CheckSettings
    runs_user_code: ClassVar[bool] = False
    available: ClassVar[bool] = False

    def run(self, ctx: CheckContext) -> CheckResult:
        return not_available(self.name)
