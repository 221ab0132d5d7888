"""The plan runs the gradient check for gradient-sensitive edits outside its zones, and says why."""

from __future__ import annotations

from typing import Any

import pytest
from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, Plan, PlannedCheck, ReasonKind, make_plan
from gradgate.bot.report.render import render_plan
from gradgate.checks.gradient.edits import GradientEdit

ZONES = [
    {"name": "model-core", "paths": ["models/**"], "checks": ["gradient"]},
    {"name": "docs", "paths": ["README.md"], "checks": ["config-docs"]},
]
DETACH = GradientEdit("utils/features.py", 12, ".detach()")
NO_GRAD_GONE = GradientEdit("utils/eval.py", 30, "torch.no_grad", removed=True)


def config(**extra: Any) -> Config:
    return Config.model_validate({"zones": ZONES, **extra})


def plan_for(
    cfg: Config,
    paths: tuple[str, ...],
    edits: tuple[GradientEdit, ...] = (),
    unscanned: tuple[str, ...] = (),
    only: tuple[str, ...] | None = None,
) -> Plan:
    return make_plan(
        cfg,
        paths,
        changed_files=len(paths),
        config_origin=ConfigOrigin.BASE,
        only=only,
        gradient_edits=edits,
        unscanned=unscanned,
    )


def gradient(plan: Plan) -> PlannedCheck:
    return next(c for c in plan.checks if c.name == "gradient")


def test_an_edit_outside_every_zone_runs_the_gradient_check_and_names_the_line() -> None:
    plan = plan_for(config(), ("utils/features.py", "utils/eval.py"), (DETACH, NO_GRAD_GONE))
    check = gradient(plan)
    assert check.run
    (reason,) = check.reasons
    assert reason.kind is ReasonKind.GRADIENT_SENSITIVE
    assert (reason.path, reason.line, reason.construct, reason.more) == (
        "utils/features.py",
        12,
        ".detach()",
        1,
    )
    assert plan.as_json()["checks"][1]["reasons"] == [
        {
            "kind": "gradient-sensitive",
            "zone": None,
            "path": "utils/features.py",
            "more": 1,
            "line": 12,
            "construct": ".detach()",
            "removed": False,
        }
    ]
    text = render_plan(plan, "text")
    assert (
        "gradient-sensitive edit: `utils/features.py:12` adds `.detach()` (and 1 more such edit)"
        in text
    )


def test_a_removal_is_named_at_its_base_line() -> None:
    plan = plan_for(config(), ("utils/eval.py",), (NO_GRAD_GONE,))
    text = render_plan(plan, "text")
    assert "`utils/eval.py:30` removes `torch.no_grad` (line 30 at base)" in text


def test_the_edit_adds_to_the_zone_reason_when_the_zone_already_requires_it() -> None:
    edit = GradientEdit("models/net.py", 4, ".detach()")
    kinds = [r.kind for r in gradient(plan_for(config(), ("models/net.py",), (edit,))).reasons]
    assert kinds == [ReasonKind.ZONE, ReasonKind.GRADIENT_SENSITIVE]


@pytest.mark.parametrize(
    ("name", "cfg"),
    [
        ("switched off", config(**{"gradient-sensitive": {"enabled": False}})),
        ("file excluded", config(**{"gradient-sensitive": {"exclude": ["utils/**"]}})),
        (
            "no zone uses the gradient check: it has no model to run",
            Config.model_validate({"zones": ZONES[1:]}),
        ),
    ],
)
def test_no_trigger(name: str, cfg: Config) -> None:
    check = gradient(plan_for(cfg, ("utils/features.py",), (DETACH,)))
    assert not check.run, name
    assert [r.kind for r in check.reasons] == [ReasonKind.NOT_IN_ZONE], name


def test_always_counts_as_using_the_gradient_check() -> None:
    cfg = Config.model_validate({"zones": ZONES[1:], "always": ["protected", "gradient"]})
    kinds = [r.kind for r in gradient(plan_for(cfg, ("utils/features.py",), (DETACH,))).reasons]
    assert kinds == [ReasonKind.ALWAYS, ReasonKind.GRADIENT_SENSITIVE]


def test_an_excluded_edit_gives_way_to_the_next_one() -> None:
    cfg = config(**{"gradient-sensitive": {"exclude": ["utils/features.py"]}})
    (reason,) = gradient(plan_for(cfg, ("a", "b"), (DETACH, NO_GRAD_GONE))).reasons
    assert (reason.path, reason.removed, reason.more) == ("utils/eval.py", True, 0)


def test_only_still_selects() -> None:
    check = gradient(plan_for(config(), ("utils/features.py",), (DETACH,), only=("protected",)))
    assert not check.run
    assert [r.kind for r in check.reasons] == [ReasonKind.NOT_SELECTED]


def test_a_change_too_large_to_read_runs_the_gradient_check_to_be_safe() -> None:
    paths = (*[f"scripts/s{i}.py" for i in range(300)], "notes.md")
    check = gradient(plan_for(config(), paths, unscanned=paths))
    assert check.run
    (reason,) = check.reasons
    assert (reason.kind, reason.path, reason.more) == (
        ReasonKind.GRADIENT_UNSCANNED,
        "scripts/s0.py",
        301,
    )
    text = render_plan(plan_for(config(), paths, unscanned=paths), "text")
    assert (
        "301 changed paths are too many to scan for gradient-sensitive edits "
        "(`scripts/s0.py` among them), so it runs to be safe"
    ) in text


def test_an_excluded_python_file_gives_way_to_the_next_unread_one() -> None:
    paths = ("scripts/s0.py", "tools/t.py")
    cfg = config(**{"gradient-sensitive": {"exclude": ["scripts/"]}})
    (reason,) = gradient(plan_for(cfg, paths, unscanned=paths)).reasons
    assert reason.path == "tools/t.py"


def test_a_large_change_without_unexcluded_python_files_does_not() -> None:
    docs = tuple(f"docs/p{i}.md" for i in range(900))
    assert not gradient(plan_for(config(), docs, unscanned=docs)).run
    scripts = tuple(f"scripts/s{i}.py" for i in range(300))
    cfg = config(**{"gradient-sensitive": {"exclude": ["scripts/"]}})
    assert not gradient(plan_for(cfg, scripts, unscanned=scripts)).run
