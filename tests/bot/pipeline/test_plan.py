"""A plain `gradgate plan` reads only the diff's paths (no patch): it plans exactly what a check
run, which reads every changed line, plans."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from gradgate.bot.git.repository import GitRepository
from gradgate.bot.pipeline import Request, plan_request
from gradgate.checks.errors import GitError

from tests.gitrepo import GitRepo

POLICY = """\
zones:
  - name: models
    paths: ["src/*/models/**", "!src/*/models/experimental/**", "**/model.py"]
    checks: [gradient, checkpoint]
  - name: configs
    paths: ["/configs/*.yaml", "docs/**/*.md", "**/typo_nowhere.py", "/gone/"]
    checks: [config-docs]
  - name: cache
    paths: ["**/*_cache_*"]
    checks: [protected]
"""


def files(n: int) -> dict[str, str]:
    """``n`` files spread over packages and directories."""
    out = {}
    for i in range(n):
        package, sub = f"pkg{i % 7}", ("models", "layers", "experimental", "io")[i % 4]
        out[f"src/{package}/{sub}/unit_{i}.py"] = f"x = {i}\n"
    out.update({"configs/train.yaml": "lr: 1\n", "docs/a/b/guide.md": "# g\n"})
    out.update({"tools/model.py": "m = 1\n", "gone/readme.txt": "r\n"})
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    repo = GitRepo(tmp_path_factory.mktemp("paths") / "repo")  # only read by the tests
    repo.write(".gradgate.yml", POLICY)
    for path, text in files(3000).items():
        repo.write(path, text)
    repo.commit("base")
    repo.branch("pr")
    for i in range(0, 3000, 3):  # every third file edited, some moved, some removed
        path = repo.root / f"src/pkg{i % 7}/{('models', 'layers', 'experimental', 'io')[i % 4]}"
        unit = path / f"unit_{i}.py"
        if i % 9 == 0:
            unit.rename(path / f"moved_{i}.py")
        elif i % 15 == 0:
            unit.unlink()
        else:
            unit.write_text(f"x = {i} + 1\n")
    repo.write("src/pkg1/io/read_cache_1.py", "c = 1\n")
    repo.write("configs/train.yaml", "lr: 2\n")
    (repo.root / "gone/readme.txt").unlink()
    repo.commit("edits")
    return repo


def test_a_plain_plan_plans_what_a_check_run_plans(project: GitRepo) -> None:
    request = Request(repo_path=project.root, base="main", head="pr")
    plain = plan_request(request, for_checks=False).plan
    full = plan_request(request, for_checks=True).plan
    assert plain == full
    assert set(plain.zones) == {"models", "configs", "cache"}
    assert plain.zones["cache"] == ("src/pkg1/io/read_cache_1.py",)
    assert not any("/experimental/" in p for p in plain.zones["models"])
    assert {p.replace("moved_", "unit_") for p in plain.zones["models"]} <= set(files(3000))
    # `/gone/` matched a file at base only: a gap at head, as is the typo.
    assert plain.unmatched == {"configs": ("**/typo_nowhere.py", "/gone/")}


def test_a_listing_git_could_not_give_is_a_git_error(project: GitRepo) -> None:
    source = GitRepository(project.root)
    blob = project.git("rev-parse", "main:configs/train.yaml").strip()
    with pytest.raises(GitError, match="ls-tree"):
        source.listing(blob)
    assert "src/pkg1/io/read_cache_1.py\0" in source.listing(source.resolve("pr"))


# `gradgate plan` as a fresh process runs it; prints the plan's zones and what was imported.
PLAN_COMMAND = """
import contextlib, io, json, sys
from gradgate.bot.doors.cli import main
out = io.StringIO()
argv = ["plan", "--repo", sys.argv[1], "--base", "main", "--head", "pr", "--format", "json"]
with contextlib.redirect_stdout(out):
    code = main(argv)
print(json.dumps({"exit": code, "plan": json.loads(out.getvalue()), "modules": list(sys.modules)}))
"""


def test_the_plan_command_imports_only_what_planning_needs(project: GitRepo) -> None:
    """Issue 38: no check's implementation (the registry loads one to run it), no model
    session or sandbox runner, no torch (DESIGN), and no template engine for JSON."""
    done = subprocess.run(
        [sys.executable, "-c", PLAN_COMMAND, str(project.root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["exit"] == 0 and set(got["plan"]["zones"]) == {"models", "configs", "cache"}
    modules = set(got["modules"])
    checks = {m for m in modules if m.startswith("gradgate.checks.") and m.endswith(".check")}
    assert not checks
    unwanted = {"torch", "jinja2", "gradgate.checks.model.session", "gradgate.checks.sandbox.run"}
    assert not modules & unwanted
