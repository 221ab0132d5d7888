"""The registry of checks: one entry per check, in report order; no import side effects.

An entry holds what configuring and planning need to know of a check (its title, whether it
runs user code, whether this version has built it, its settings model) and names the class that
runs it. That class, with everything its module imports, is loaded when the check first runs:
`gradgate plan` validates a config and plans without importing any check's implementation
(issue 38: importing all of them was half of the command's time). A settings model is named
too: planning imports the check's light `settings` module, not its `check`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradgate.checks.base import Check, CheckResult, CheckSettings
    from gradgate.checks.context import CheckContext


@dataclass(frozen=True, eq=False)
class Listed:
    """A check as the registry lists it. Its implementation, the class ``implementation`` in
    ``gradgate.checks.<package>.check``, is loaded when the check first runs; its settings
    model, ``settings`` in ``gradgate.checks.<package>.settings``, when a config is read."""

    name: str
    title: str  # a short human title for the report table
    package: str
    implementation: str  # a class following checks.base.Check
    settings: str  # a checks.base.CheckSettings
    runs_user_code: bool  # True: needs the sandbox and a trusted PR
    available: bool = True  # False: announced in the schema, not built yet
    # A code-running check with a static part that runs at once for an untrusted PR
    # (bot.app.trust).
    runs_without_user_code: bool = False

    @cached_property
    def settings_model(self) -> type[CheckSettings]:
        module = importlib.import_module(f"gradgate.checks.{self.package}.settings")
        return getattr(module, self.settings)  # type: ignore[no-any-return]

    @cached_property
    def check(self) -> Check:
        """The implementation, loaded on first use."""
        module = importlib.import_module(f"gradgate.checks.{self.package}.check")
        return getattr(module, self.implementation)()  # type: ignore[no-any-return]

    def run(self, ctx: CheckContext) -> CheckResult:
        return self.check.run(ctx)


REGISTRY: dict[str, Listed] = {
    check.name: check
    for check in (
        Listed(
            "protected",
            "Protected lines",
            "protected",
            "ProtectedCheck",
            "ProtectedSettings",
            runs_user_code=False,
        ),
        Listed(
            "gradient",
            "Gradient flow",
            "gradient",
            "GradientCheck",
            "GradientSettings",
            runs_user_code=True,
        ),
        Listed(
            "checkpoint",
            "Checkpoint compatibility",
            "checkpoint",
            "CheckpointCheck",
            "CheckpointSettings",
            runs_user_code=True,
            runs_without_user_code=True,
        ),
        Listed(
            "behaviour",
            "Behaviour",
            "behaviour",
            "BehaviourCheck",
            "BehaviourSettings",
            runs_user_code=True,
        ),
        Listed("data", "Data pipeline", "data", "DataCheck", "DataSettings", runs_user_code=True),
        Listed(
            "config-docs",
            "Config and docs agree",
            "config_docs",
            "ConfigDocsCheck",
            "ConfigDocsSettings",
            runs_user_code=False,
        ),
        Listed(
            "api-contract",
            "API contracts",
            "api_contract",
            "ApiContractCheck",
            "ApiContractSettings",
            runs_user_code=False,
        ),
        Listed(
            "dl-lint", "DL lints", "dl_lint", "DlLintCheck", "DlLintSettings", runs_user_code=False
        ),
        Listed(
            "metrics",
            "Eval metrics",
            "metrics",
            "MetricsCheck",
            "MetricsSettings",
            runs_user_code=True,
        ),
        Listed("perf", "Step time", "perf", "PerfCheck", "PerfSettings", runs_user_code=True),
        Listed(
            "commands",
            "Documented commands",
            "commands",
            "CommandsCheck",
            "CommandsSettings",
            runs_user_code=True,
        ),
    )
}

__all__ = ["REGISTRY", "Listed"]
