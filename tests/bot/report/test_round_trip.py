"""A report read back from its JSON (the App's and the Action's path) says all the CLI says.

Issue 18: through JSON a gradient-sensitive edit lost its line and construct ("`model.py:None`
adds `None`" where the CLI said "`model.py:104` adds `.detach()`"). Here one report that sets
every field of every value the report carries (a plan reason of each kind, a finding of each
severity and fence, a sandbox, a check's own data, the diff's lines) is rendered directly and
after a JSON round trip, and both must be the same, in every format.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, get_args

import pytest
from gradgate.bot import templates
from gradgate.bot.plan.plan import ConfigOrigin, Plan, PlannedCheck, Reason, ReasonKind
from gradgate.bot.report.lines import DiffLines
from gradgate.bot.report.load import report_from_json
from gradgate.bot.report.render import Report, render, status_descriptions
from gradgate.bot.report.verdict import Verdict
from gradgate.checks import REGISTRY
from gradgate.checks.base import (
    CheckResult,
    Finding,
    Outcome,
    Severity,
    Suppression,
    SuppressionOrigin,
)
from gradgate.checks.cache.results import CachedSide
from gradgate.checks.diff import LineSpan
from gradgate.checks.model.plan.compare import ModelFacts, ModelPlan, PlanProblem, plan_for
from gradgate.checks.sandbox.isolation import Isolation


def _reasons(kind: ReasonKind) -> tuple[Reason, ...]:
    """Every field set: the gradient-sensitive edit both added and removed."""
    return (
        Reason(kind, zone="model", path="model.py", more=2, line=104, construct=".detach()"),
        Reason(kind, zone="model", path="loss.py", more=1, line=7, construct="torch.no_grad()",
               removed=True),
    )  # fmt: skip


OWN_TEMPLATES = frozenset(
    p.name.removeprefix("check_").split(".")[0]
    for p in (Path(templates.__file__).parent).glob("check_*.md.j2")
)


def _finding(severity: Severity, lang: str, n: int) -> Finding:
    return Finding(
        kind=f"kind-{severity}-{lang}",
        severity=severity,
        message=f"`model.py:{n}` says something ({severity}, {lang}).",
        file="model.py",
        line=n,
        details=f"-old {n}\n+new {n}",
        revision="base",
        details_lang=lang,
        head_file="src/model.py",
        head_line=n + 1,
    )


def _result(name: str, i: int) -> CheckResult:
    findings = tuple(
        _finding(severity, lang, 10 * i + j + 1)
        for j, (severity, lang) in enumerate(
            (s, lang) for s in Severity for lang in ("diff", "text", "suggestion")
        )
    )
    return CheckResult(
        check=name,
        outcome=Outcome.FAIL,
        summary=f"{name} found {len(findings)} things",
        findings=findings,
        metrics={"parameters": 12.0, "seconds": 1.5},
        duration_s=2.25,
        isolation=Isolation(
            sandbox="process",
            reason="no bubblewrap",
            memory="run",
            processes="process",
            network=False,
            contained=True,
            cgroup=2,
            disk="watched",
            disk_mb=2048,
        ),
        # A check with its own template (check_<name>.*.j2) reads its own data; the others
        # carry it only in JSON.
        extra={} if name in OWN_TEMPLATES else {"note": name, "values": [1, 2.5, "x", None, {}]},
        # One suppression of each origin (issue 34), every field set.
        suppressions=tuple(
            Suppression(f"rule-{origin}", origin, file="model.py", line=i + 1, reason="we know")
            for origin in get_args(SuppressionOrigin)
        ),
        # A side read from the result cache (issue 37), with the commit that computed it.
        cached=(CachedSide("base", f"{i:040x}", "gradient.child.probe:probe"),),
    )


def _report() -> Report:
    names = list(REGISTRY)
    kinds = list(ReasonKind)
    planned = tuple(
        PlannedCheck(
            name=name,
            title=REGISTRY[name].title,
            run=True,
            reasons=_reasons(kinds[i % len(kinds)]) + _reasons(kinds[(i + 3) % len(kinds)]),
            available=True,
            runs_user_code=REGISTRY[name].runs_user_code,
            zones=("model",),
        )
        for i, name in enumerate(names)
    )
    plan = Plan(
        checks=planned,
        zones={"model": ("model.py", "loss.py")},
        changed_files=3,
        config_origin=ConfigOrigin.HEAD,
        config_changed=True,
        owners={"model": ("@ml-team",)},
        unmatched={"model": ("old/*.py",)},
        configured_zones=2,
        nothing_protected=True,
        config_uncommitted=True,
    )
    return Report(
        verdict=Verdict.FAILURE,
        results=tuple(_result(name, i) for i, name in enumerate(names)),
        plan=plan,
        base_sha="a" * 40,
        head_sha="b" * 40,
        config_hash="c0ffee123456",
        config_source="the base commit's .gradgate.yml",
        error="one check could not decide",
        diff_lines=DiffLines(
            head={"src/model.py": (LineSpan(3, 5), LineSpan(104, 104))},
            base={"model.py": (LineSpan(7, 9),)},
            renamed={"model.py": "src/model.py"},
        ),
        model_plan=_model_plan(),
        plan_cached=(("base", "b" * 40),),
    )


def _model_plan() -> ModelPlan:
    """A variant with a change of every kind, and a revision that could not answer."""

    def facts(entries: dict[str, Any], modules: dict[str, str], flops: int | None) -> ModelFacts:
        return ModelFacts.from_json(
            {
                "variant": "flash",
                "entries": entries,
                "modules": [["", "Net"], *([path, kind] for path, kind in modules.items())],
                "parameters": {path.split(".")[0]: 10 for path in modules},
                "flops": flops,
                "flops_error": None if flops else "RuntimeError: no",
            }
        )

    def blocks(act: str) -> dict[str, str]:  # two alike blocks, folded in the tree
        return {"blocks": "ModuleList", "blocks.0": "Block", "blocks.0.act": act,
                "blocks.1": "Block", "blocks.1.act": act}  # fmt: skip

    base = facts(
        {"fc.weight": [[4, 8], "float32"], "old.weight": [[2], "float32"],
         "norm.weight": [[8], "float32"], "emb.weight": [[3, 8], "float32"]},
        {"fc": "Linear", "old": "Linear", "norm": "LayerNorm", "emb": "Embedding",
         **blocks("ReLU")},
        1000,
    )  # fmt: skip
    head = facts(
        {"classifier.weight": [[4, 8], "float32"], "new.weight": [[5], "float32"],
         "norm.weight": [[16], "float32"], "emb.weight": [[3, 8], "bfloat16"]},
        {"classifier": "Linear", "new": "Linear", "norm": "RMSNorm", "emb": "Embedding",
         **blocks("GELU")},
        None,
    )  # fmt: skip
    described = plan_for([base], [head])
    return dataclasses.replace(described, problems=(PlanProblem("head", "it is gone"),))


def _round_trip(report: Report) -> Report:
    return report_from_json(json.loads(render(report, "json")))


def test_every_reason_kind_is_in_the_report() -> None:
    said = {r.kind for c in _report().plan.checks for r in c.reasons}  # type: ignore[union-attr]
    assert said == set(ReasonKind)


def _unset(report: Report) -> set[str]:
    """Fields of the report's values that no value of their type sets to other than the default."""
    seen: dict[str, set[str]] = {}  # type -> its fields that have a default
    said: set[str] = set()  # type.field set somewhere

    def walk(value: Any) -> None:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            name = type(value).__name__
            for f in dataclasses.fields(value):
                got = getattr(value, f.name)
                if f.default_factory is not dataclasses.MISSING:
                    default = f.default_factory()
                elif f.default is not dataclasses.MISSING:
                    default = f.default
                else:
                    walk(got)
                    continue
                seen.setdefault(name, set()).add(f.name)
                if got != default:
                    said.add(f"{name}.{f.name}")
                walk(got)
        elif isinstance(value, tuple | list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk(report)
    return {f"{name}.{f}" for name, fields in seen.items() for f in fields} - said


# Set by each door, after the JSON is read: how to re-run and where files link to.
_DOOR_FIELDS = {"Report.base_ref", "Report.head_ref", "Report.rerun", "Report.repo_url",
                "Report.options", "Report.docs_url"}  # fmt: skip


def test_the_report_sets_every_field_the_json_carries() -> None:
    """So a field added to a report value without a way through JSON fails the next test."""
    assert _unset(_report()) == _DOOR_FIELDS


def test_a_report_comes_back_from_json_equal() -> None:
    report = _report()

    assert _round_trip(report) == report


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_report_renders_the_same_directly_and_through_json(fmt: str) -> None:
    report = _report()

    direct = render(report, fmt)  # type: ignore[arg-type]
    assert direct == render(_round_trip(report), fmt)  # type: ignore[arg-type]
    assert "model.py:104" in direct


def test_status_descriptions_are_the_same_directly_and_through_json() -> None:
    report = _report()

    assert status_descriptions(_round_trip(report)) == status_descriptions(report)


def test_a_gradient_sensitive_edit_keeps_its_line_and_construct_through_json() -> None:
    reason = Reason(ReasonKind.GRADIENT_SENSITIVE, path="model.py", line=104, construct=".detach()")
    planned = PlannedCheck(
        name="gradient", title="Gradient flow", run=True, reasons=(reason,), available=True,
        runs_user_code=True,
    )  # fmt: skip
    plan = Plan(
        checks=(planned,), zones={}, changed_files=1, config_origin=ConfigOrigin.BASE,
        config_changed=False,
    )  # fmt: skip
    report = Report(verdict=Verdict.SUCCESS, plan=plan)

    text = render(_round_trip(report), "text")
    assert "`model.py:104` adds `.detach()`" in text
    assert "None" not in text
