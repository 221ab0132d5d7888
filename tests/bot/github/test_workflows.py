"""The shipped action.yml and workflows, and those `gradgate init --workflows` writes: GitHub's
schemas (check-jsonschema), zizmor's audits, and actions pinned by full commit SHA."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gradgate.bot.doors.cli import main

from tests.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
ACTION = "acme/gradgate@" + "0123456789abcdef" * 2 + "01234567"
_PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def _tool(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, check=False, timeout=300
    )


@pytest.fixture
def written(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> list[Path]:
    repo.write("README.md", "x\n")
    repo.commit()
    assert main(["init", "--workflows", "--action", ACTION, "--repo", str(repo.root)]) == 0
    out = capsys.readouterr().out
    paths = sorted((repo.root / ".github" / "workflows").glob("*.yml"))
    assert [p.name for p in paths] == ["gradgate-publish.yml", "gradgate.yml"]
    assert all(str(p) in out for p in paths)
    return paths


def _uses(path: Path) -> list[str]:
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "uses" and isinstance(value, str):
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    return found


def test_written_workflows_match_githubs_schema(written: list[Path]) -> None:
    done = _tool(BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", *written)
    assert done.returncode == 0, done.stdout + done.stderr


def test_written_workflows_have_no_zizmor_findings(written: list[Path]) -> None:
    done = _tool(BIN / "zizmor", "--offline", *written)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings" in done.stdout


def test_shipped_action_and_workflows_pass_both(tmp_path: Path) -> None:
    action = _tool(
        BIN / "check-jsonschema", "--builtin-schema", "vendor.github-actions", ROOT / "action.yml"
    )
    assert action.returncode == 0, action.stdout + action.stderr
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    schema = _tool(
        BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows
    )
    assert schema.returncode == 0, schema.stdout + schema.stderr
    audit = _tool(BIN / "zizmor", "--offline", ROOT / "action.yml", *workflows)
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_every_action_used_is_pinned_to_a_full_commit_sha(written: list[Path]) -> None:
    files = [*written, ROOT / "action.yml", *(ROOT / ".github" / "workflows").glob("*.yml")]
    uses = [u for path in files for u in _uses(path)]

    assert uses and all(_PINNED.match(u) for u in uses), [u for u in uses if not _PINNED.match(u)]
    assert ACTION in uses


def test_the_checks_workflow_is_read_only_and_the_publisher_never_checks_out(
    written: list[Path],
) -> None:
    checks = yaml.safe_load(written[1].read_text(encoding="utf-8"))
    publish = yaml.safe_load(written[0].read_text(encoding="utf-8"))

    assert checks["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in checks["jobs"].values())
    # The trusted side checks out the default branch only (no `ref:`): never the PR's tree.
    checkouts = [
        step
        for job in publish["jobs"].values()
        for step in job["steps"]
        if "actions/checkout" in step.get("uses", "")
    ]
    assert checkouts and all("ref" not in step.get("with", {}) for step in checkouts)
    assert publish["permissions"] == {}
    # YAML 1.1 reads `on` as True; of pull_request_target, only a label put on (`ok-to-test`)
    assert set(publish[True]) == {"workflow_run", "issue_comment", "pull_request_target"}
    assert publish[True]["pull_request_target"] == {"types": ["labeled"]}


def test_init_workflows_needs_a_pinned_action(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--workflows", "--repo", str(repo.root)]) == 2
    assert "--action OWNER/gradgate@" in capsys.readouterr().err
    assert (
        main(["init", "--workflows", "--action", "acme/gradgate@v1", "--repo", str(repo.root)]) == 2
    )
    assert "full 40-character commit SHA" in capsys.readouterr().err
    assert not (repo.root / ".github").exists()


def test_init_workflows_never_overwrites_without_force(
    written: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    written[0].write_text("# mine\n")
    root = str(written[0].parents[2])

    assert main(["init", "--workflows", "--action", ACTION, "--repo", root]) == 2
    assert "already exists" in capsys.readouterr().err
    assert written[0].read_text() == "# mine\n"
    assert main(["init", "--workflows", "--action", ACTION, "--repo", root, "--force"]) == 0
    assert written[0].read_text() != "# mine\n"


def test_the_one_job_recipe_passes_both(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "doors" / "action.md").read_text(encoding="utf-8")
    section = page.split("\n## One job\n", 1)[1]
    recipe = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "gradgate.yml"
    path.write_text(recipe.replace("OWNER/gradgate@FULL_COMMIT_SHA", ACTION), encoding="utf-8")

    schema = _tool(BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", path)
    assert schema.returncode == 0, schema.stdout + schema.stderr
    audit = _tool(BIN / "zizmor", "--offline", path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert all(_PINNED.match(u) for u in _uses(path))


def test_the_check_jobs_keep_the_result_cache_between_runs(written: list[Path]) -> None:
    """The checks workflow restores and saves the CLI's cache folder with actions/cache, one
    cache per check, each run's under a key of its own; the publishing workflow, which holds
    a write token, never restores one (docs/caching.md)."""
    publish, checks = written
    steps = yaml.safe_load(checks.read_text(encoding="utf-8"))["jobs"]["check"]["steps"]
    [cache] = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
    assert cache["with"]["path"] == "~/.cache/gradgate"
    assert "github.run_id" in cache["with"]["key"] and "matrix.check" in cache["with"]["key"]
    assert cache["with"]["restore-keys"] in cache["with"]["key"]
    check_step = next(i for i, s in enumerate(steps) if s.get("with", {}).get("stage") == "check")
    assert steps.index(cache) < check_step
    assert not any(u.startswith("actions/cache@") for u in _uses(publish))
