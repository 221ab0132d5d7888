"""The registry of checks: one entry per check module, in report order; no import side effects."""

from __future__ import annotations

from gradgate.checks.api_contract.check import ApiContractCheck
from gradgate.checks.base import Check
from gradgate.checks.checkpoint.check import CheckpointCheck
from gradgate.checks.commands.check import CommandsCheck
from gradgate.checks.config_docs.check import ConfigDocsCheck
from gradgate.checks.data.check import DataCheck
from gradgate.checks.dl_lint.check import DlLintCheck
from gradgate.checks.gradient.check import GradientCheck
from gradgate.checks.metrics.check import MetricsCheck
from gradgate.checks.perf.check import PerfCheck
from gradgate.checks.protected.check import ProtectedCheck

REGISTRY: dict[str, Check] = {
    check.name: check
    for check in (
        ProtectedCheck(),
        GradientCheck(),
        CheckpointCheck(),
        DataCheck(),
        ConfigDocsCheck(),
        ApiContractCheck(),
        DlLintCheck(),
        MetricsCheck(),
        PerfCheck(),
        CommandsCheck(),
    )
}

__all__ = ["REGISTRY"]
