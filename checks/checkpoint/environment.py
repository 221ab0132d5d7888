"""C5: a state-dict key registered only under an environment condition (flash attention
available, CUDA present), judged as it is where the check ran (issue 20): blocking when the PR
made the head model differ from the base model there, since old checkpoints then fail a strict
load on that machine; a warning, with the condition named, when base was the same."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gradgate.checks.base import Finding, Severity
from gradgate.checks.checkpoint.judge import Judgement
from gradgate.checks.checkpoint.place import Placer

ENVIRONMENT = "checkpoint-environment-key"


def environment(
    placer: Placer, judgement: Judgement, key: str, condition: Mapping[str, Any], label: str
) -> Finding:
    """C5: a key registered under an environment condition, judged as it is where the check
    ran: blocking when the PR made it differ here (old checkpoints fail a strict load)."""
    code_file, code_line = condition.get("file"), condition.get("line")
    where = f" (`{code_file}:{code_line}`)" if code_file else ""
    located = isinstance(code_file, str) and isinstance(code_line, int)
    here = "has" if condition.get("head") else "lacks"
    says = (
        f"`{key}` exists only when `{condition.get('condition')}`{where}, which "
        "depends on the machine the model is built on. "
    )
    if key in judgement.environment_breaks:
        message = says + (
            f"Where this check ran the head model {here} it and the base model did not agree, "
            f"so {label} no longer loads here with `strict=True`. Register it the same way in "
            "every environment (or `persistent=False` in every branch)."
        )
        severity = Severity.BLOCKING
    else:
        message = says + (
            f"The base model was built the same way here, so this PR did not change it; "
            f"{label} has it on some machines and not on others. Register it unconditionally, "
            "or load with `strict=False`."
        )
        severity = Severity.WARNING
    return placer.finding(
        ENVIRONMENT,
        severity,
        message,
        keys=[key],
        drop=here == "lacks",
        line=(code_file, code_line) if located else None,
    )
