"""Reports across runs (pure): the wire form between processes, and merging a partial run
(the GPU half, a /recheck of what failed) into the report it completes."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import replace

from gradgate.bot.report.load import report_from_json
from gradgate.bot.report.render import Report, as_json
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import Outcome

RERUN_ON_RECHECK = frozenset({Outcome.FAIL, Outcome.ERROR, Outcome.UNAVAILABLE, Outcome.WAITING})


def to_wire(report: Report) -> str:
    """The report's JSON (`gradgate check --format json`'s): JSON, not pickle, because the
    process that reads it holds the App's credentials."""
    return json.dumps(as_json(report))


def from_wire(text: str | bytes) -> Report:
    """Parsed strictly into typed values (bot/report/load.py), as every door reads a report
    another process wrote. Raises ValueError naming the first problem."""
    return report_from_json(json.loads(text))


def to_rerun(report: Report) -> tuple[str, ...]:
    """What `/recheck` re-runs: the checks that failed, errored or are still waiting."""
    return tuple(r.check for r in report.results if r.outcome in RERUN_ON_RECHECK)


def merge(earlier: Report, fresh: Report, *, checks: Collection[str]) -> Report:
    """``earlier`` with the results of ``checks`` taken from ``fresh`` (a run of only those).

    The plan is the earlier one (the fresh run's plan marks the other checks "not selected").
    A fresh run that could not decide at all (an error before any check) makes the whole
    report an error: never a pass built from old results.
    """
    if fresh.error is not None or earlier.error is not None:
        return replace(fresh, plan=fresh.plan or earlier.plan)
    if fresh.head_sha != earlier.head_sha or fresh.base_sha != earlier.base_sha:
        return fresh  # other revisions: nothing earlier applies
    wanted = set(checks)
    results = tuple(
        (fresh.result_for(r.check) or r) if r.check in wanted else r for r in earlier.results
    )
    return replace(earlier, results=results, verdict=verdict_for(results))
