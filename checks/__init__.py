"""The registry of checks: one entry per check module, in report order; no import side effects."""

from __future__ import annotations

from checks.base import Check
from checks.pending import ApiContractCheck, CheckpointCheck, ConfigDocsCheck, GradientCheck
from checks.protected import ProtectedCheck

REGISTRY: dict[str, Check] = {
    check.name: check
    for check in (
        ProtectedCheck(),
        GradientCheck(),
        CheckpointCheck(),
        ConfigDocsCheck(),
        ApiContractCheck(),
    )
}

__all__ = ["REGISTRY"]
