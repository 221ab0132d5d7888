"""Settings of the `api-contract` check: what is watched besides the zones, and the loss calls."""

from __future__ import annotations

from gradgate.checks.api_contract.allow import AllowRule
from gradgate.checks.base import CheckSettings
from pydantic import Field


class ApiContractSettings(CheckSettings):
    """Settings of the `api-contract` check."""

    watch: tuple[str, ...] = Field(
        default=(),
        description=(
            "Qualified names of functions and methods whose signatures are compared wherever "
            "they live, besides those in zones that require the check; `*` matches any part, "
            "e.g. `mypkg.losses.*` or `mypkg.metrics.Accuracy.update`."
        ),
    )
    losses: bool = Field(
        default=True,
        strict=True,
        description=(
            "Flag calls of asymmetric torch losses (`F.cross_entropy`, `nn.NLLLoss()`...) whose "
            "arguments look swapped, by their names or against the same call at base."
        ),
    )
    allow: tuple[AllowRule, ...] = Field(
        default=(),
        description=(
            "Intended signature changes: functions (qualified names, as for `watch`) and why; "
            "their findings become notes."
        ),
    )
