"""Step 5 for one check: run it in isolation; whatever goes wrong is an error result."""

from __future__ import annotations

import time
from dataclasses import replace

from gradgate.bot.deadline import TimedOut, within
from gradgate.checks import REGISTRY
from gradgate.checks.base import CheckResult, Outcome, failed, not_available
from gradgate.checks.context import CheckContext
from gradgate.checks.sandbox.isolation import weakest


def run_check(name: str, ctx: CheckContext) -> CheckResult:
    """Step 5 for one check, in isolation, timed here (checks do not time themselves): whatever
    it raises becomes an error result (``checks.base.failed``, the one mapping), and so does
    running past its `timeout_s` (in-process checks included)."""
    check = REGISTRY[name]
    if not check.available:
        return not_available(name)
    started = time.monotonic()
    limit = ctx.settings.timeout_s
    try:
        result = within(limit, lambda: check.run(ctx), name=f"gradgate-check-{name}")
    except TimedOut:
        result = CheckResult(
            check=name,
            outcome=Outcome.ERROR,
            summary=f"`{name}` did not finish within its limit of {limit:g} s "
            f"(checks.{name}.timeout_s); nothing was passed",
            duration_s=limit,
        )
    except Exception as exc:
        result = failed(name, exc)
    elapsed = time.monotonic() - started
    return replace(
        result,
        duration_s=result.duration_s or elapsed,
        isolation=result.isolation or weakest(ctx.isolations),  # the report says how
        cached=result.cached or tuple(dict.fromkeys(ctx.cached)),  # and what was reused
    )
