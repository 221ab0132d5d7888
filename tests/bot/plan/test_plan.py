from __future__ import annotations

import json

import pytest
from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import ConfigOrigin, Plan, ReasonKind, changed_paths, make_plan
from gradgate.checks import REGISTRY
from gradgate.checks.diff import ChangeStatus, FileChange
from gradgate.checks.pending import _Pending

CONFIG = Config.model_validate(
    {
        "zones": [
            {
                "name": "model-core",
                "paths": ["models/**", "!models/experimental/**"],
                "checks": ["gradient", "checkpoint"],
                "owners": ["@ml-core"],
            },
            {"name": "docs", "paths": ["README.md", "configs/*.yaml"], "checks": ["config-docs"]},
            {"name": "training", "paths": ["train.py"], "checks": ["protected"]},
        ],
        "always": ["protected"],
    }
)


def modified(*paths: str) -> tuple[FileChange, ...]:
    return tuple(FileChange(path=p, status=ChangeStatus.MODIFIED) for p in paths)


def plan_for(*changes: FileChange, only: tuple[str, ...] | None = None) -> Plan:
    return make_plan(
        CONFIG,
        changed_paths(changes),
        changed_files=len(changes),
        config_origin=ConfigOrigin.BASE,
        only=only,
    )


def planned(plan: Plan, name: str) -> tuple[bool, list[ReasonKind]]:
    check = next(c for c in plan.checks if c.name == name)
    return check.run, [r.kind for r in check.reasons]


@pytest.mark.parametrize(
    ("paths", "check", "runs", "reasons"),
    [
        (("models/encoder.py",), "gradient", True, [ReasonKind.ZONE]),
        (("models/encoder.py",), "config-docs", False, [ReasonKind.NOT_IN_ZONE]),
        (("models/experimental/new.py",), "gradient", False, [ReasonKind.NOT_IN_ZONE]),
        (("README.md",), "config-docs", True, [ReasonKind.ZONE]),
        (("configs/sub/train.yaml",), "config-docs", False, [ReasonKind.NOT_IN_ZONE]),
        (("notes.txt",), "protected", True, [ReasonKind.ALWAYS]),
        (("train.py",), "protected", True, [ReasonKind.ALWAYS, ReasonKind.ZONE]),
        ((), "protected", False, [ReasonKind.NO_CHANGES]),
    ],
)
def test_plan_table(
    paths: tuple[str, ...], check: str, runs: bool, reasons: list[ReasonKind]
) -> None:
    assert planned(plan_for(*modified(*paths)), check) == (runs, reasons)


def test_zone_reason_names_the_path_and_counts_the_others() -> None:
    plan = plan_for(*modified("models/a.py", "models/b.py", "models/c.py"))
    gradient = next(c for c in plan.checks if c.name == "gradient")
    (reason,) = gradient.reasons
    assert (reason.zone, reason.path, reason.more) == ("model-core", "models/a.py", 2)
    assert plan.owners == {"model-core": ("@ml-core",)}


def test_a_rename_out_of_a_zone_still_touches_the_zone() -> None:
    moved = FileChange(
        path="attic/encoder.py", old_path="models/encoder.py", status=ChangeStatus.RENAMED
    )
    plan = plan_for(moved)
    assert plan.zones["model-core"] == ("models/encoder.py",)
    assert planned(plan, "checkpoint")[0]


def test_only_selects_checks_and_says_why_the_rest_are_skipped() -> None:
    plan = plan_for(*modified("models/a.py"), only=("gradient",))
    assert planned(plan, "gradient") == (True, [ReasonKind.ZONE])
    assert planned(plan, "checkpoint") == (False, [ReasonKind.NOT_SELECTED])
    assert planned(plan, "protected") == (False, [ReasonKind.NOT_SELECTED])


def test_checks_not_built_yet_are_planned_but_marked_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(REGISTRY, "checkpoint", NotBuilt())
    pending = next(c for c in plan_for(*modified("models/a.py")).checks if c.name == "checkpoint")
    assert pending.run and not pending.available and pending.runs_user_code


class NotBuilt(_Pending):
    """A check announced but not built, as every check was before it landed."""

    name = "checkpoint"
    title = "Checkpoint compatibility"
    runs_user_code = True


def test_editing_the_config_is_flagged_so_the_report_can_say_it_applies_after_merge() -> None:
    assert plan_for(*modified(".gradgate.yml")).config_changed
    assert not plan_for(*modified("README.md")).config_changed


def test_plan_json_has_a_job_matrix_of_the_checks_to_run() -> None:
    data = json.loads(json.dumps(plan_for(*modified("README.md")).as_json()))
    assert data["matrix"] == {"check": ["protected", "config-docs"]}
    assert data["zones"] == {"docs": ["README.md"]}
    docs = next(c for c in data["checks"] if c["name"] == "config-docs")
    assert docs["reasons"] == [{"kind": "zone", "zone": "docs", "path": "README.md", "more": 0}]


def test_a_check_lists_each_touched_zone_requiring_it_once_in_config_order() -> None:
    config = Config.model_validate(
        {
            "zones": [
                {"name": "b-docs", "paths": ["*.md"], "checks": ["config-docs", "config-docs"]},
                {"name": "a-readme", "paths": ["README.md"], "checks": ["config-docs"]},
                {"name": "untouched", "paths": ["nope/"], "checks": ["config-docs"]},
            ]
        }
    )
    plan = make_plan(
        config, ["README.md"], changed_files=1, config_origin=ConfigOrigin.BASE, only=None
    )
    docs = next(c for c in plan.checks if c.name == "config-docs")
    assert docs.zones == ("b-docs", "a-readme")
    assert [r.zone for r in docs.reasons] == ["b-docs", "a-readme"]


def test_comment_only_change_skips_model_checks_but_still_touches_the_zone() -> None:
    plan = make_plan(
        CONFIG,
        ["models/encoder.py"],
        changed_files=1,
        config_origin=ConfigOrigin.BASE,
        non_semantic={"models/encoder.py"},
    )
    assert plan.zones == {"model-core": ("models/encoder.py",)}
    gradient = next(c for c in plan.checks if c.name == "gradient")
    assert not gradient.run
    assert [r.kind for r in gradient.reasons] == [ReasonKind.NON_SEMANTIC]
    assert gradient.reasons[0].zone == "model-core"


def test_one_real_change_in_the_zone_runs_the_model_checks() -> None:
    plan = make_plan(
        CONFIG,
        ["models/encoder.py", "models/decoder.py"],
        changed_files=2,
        config_origin=ConfigOrigin.BASE,
        non_semantic={"models/encoder.py"},
    )
    gradient = next(c for c in plan.checks if c.name == "gradient")
    assert gradient.run
    assert (gradient.reasons[0].path, gradient.reasons[0].more) == ("models/decoder.py", 0)


def test_a_comment_only_change_never_skips_the_protected_check() -> None:
    # Deleting a `# NO_REFAC` comment is exactly a comment-only change.
    config = Config.model_validate(
        {"always": [], "zones": [{"name": "m", "paths": ["models/**"], "checks": ["protected"]}]}
    )
    plan = make_plan(
        config,
        ["models/encoder.py"],
        changed_files=1,
        config_origin=ConfigOrigin.BASE,
        non_semantic={"models/encoder.py"},
    )
    assert planned(plan, "protected") == (True, [ReasonKind.ZONE])
