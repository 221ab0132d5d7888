"""Report values for the GitHub door's tests: rendered by the real templates."""

from __future__ import annotations

from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, Plan, make_plan
from gradgate.bot.report.render import Report
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity

BASE = "1111111" + "a" * 33
HEAD = "2222222" + "b" * 33
CONFIG = Config.model_validate(
    {"zones": [{"name": "model-core", "paths": ["models/**"], "checks": ["protected"]}]}
)


def plan(*paths: str) -> Plan:
    return make_plan(
        CONFIG,
        paths or ("models/a.py",),
        changed_files=len(paths) or 1,
        config_origin=ConfigOrigin.BASE,
    )


def finding(i: int, *, details_lines: int = 3, severity: Severity = Severity.BLOCKING) -> Finding:
    diff = "\n".join(
        f"-old line {i}.{j} ```not a fence``` <details>\n+new line {i}.{j}"
        for j in range(details_lines)
    )
    return Finding(
        kind="protected-line-changed",
        severity=severity,
        message=f"`models/m{i}.py:{i}` is protected by `NO_REFAC`; this PR edits it (finding {i}).",
        file=f"models/m{i}.py",
        line=i,
        details=diff,
        revision="head",
    )


def report(*findings: Finding, head: str = HEAD, outcome: Outcome | None = None) -> Report:
    if outcome is None:
        outcome = (
            Outcome.FAIL if any(f.severity is Severity.BLOCKING for f in findings) else Outcome.PASS
        )
    result = CheckResult(
        check="protected", outcome=outcome, summary=f"{len(findings)} findings", findings=findings
    )
    return Report(
        verdict=verdict_for([result]),
        results=(result,),
        plan=plan(),
        base_sha=BASE,
        head_sha=head,
        config_hash="abc123def456",
        config_source=".gradgate.yml at base 1111111",
        rerun="pr",
        repo_url="https://github.com/acme/model",
    )
