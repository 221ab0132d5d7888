"""A plain `gradgate plan` reads the config, the diff's paths and their zones while git works
(bot.pipeline.paths): it plans exactly what a check run plans, whichever git finishes first."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator

import pytest
from gradgate.bot.git.repository import GitRepository
from gradgate.bot.pipeline import Request, plan_request
from gradgate.bot.pipeline.paths import _take
from gradgate.bot.plan.unmatched import Tracked
from gradgate.bot.plan.zones import ZoneMatcher
from gradgate.checks.errors import GitError

from tests.bot.test_pipeline_aside import fresh
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
    """``n`` files spread over packages and directories (more than one batch of git's listing)."""
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


def test_the_listing_is_read_to_the_end_whenever_the_diff_comes_first(project: GitRepo) -> None:
    """While git works out the diff the planner reads git's listing of the files at head; once
    the diff is written it reads that first, and the rest of the listing afterwards."""
    source = GitRepository(project.root)
    head = source.resolve("pr")
    zones = plan_request(
        Request(repo_path=project.root, base="main", head="pr"), for_checks=False
    ).policy.config.zones
    whole = Tracked()
    with source.listing(head) as listing:
        batches = list(listing)
    for text in batches:
        whole.feed(text)
    assert len(batches) > 1  # git writes it in pieces
    assert {"src", "src/pkg1/io", "src/pkg1/io/read_cache_1.py"} <= set(whole.entries)
    for after in range(len(batches)):
        stops = iter([False] * after + [True])
        tracked, matcher = Tracked(), ZoneMatcher.compile(zones)
        with source.listing(head) as listing:
            assert not _take(listing, tracked, matcher, stops.__next__)
            assert _take(listing, tracked, None, lambda: False)
        assert tracked.entries == whole.entries and tracked.names == whole.names
        assert set(tracked.directories) == set(whole.directories)


@pytest.fixture
def collector() -> Iterator[None]:
    """The cycle collector restored, whatever a test does to it."""
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    yield
    gc.unfreeze()
    gc.enable() if enabled else gc.disable()
    assert frozen == 0 or gc.get_freeze_count() == 0


@pytest.mark.usefixtures("collector")
def test_a_plan_leaves_the_cycle_collector_as_it_found_it(project: GitRepo) -> None:
    """The plan pauses the collector while it reads, and leaves what it tracks in the oldest
    generation (nothing left young to walk); it must not switch the collector on or off for
    its caller, nor thaw what the caller froze."""
    request = Request(repo_path=project.root, base="main", head="pr")
    gc.collect()
    assert gc.isenabled()
    walks = [g["collections"] for g in gc.get_stats()]
    plan_request(request, for_checks=False)
    assert gc.isenabled()
    assert [g["collections"] for g in gc.get_stats()] == walks  # (unpaused: 3 walks here)
    gc.disable()
    plan_request(request, for_checks=False)
    assert not gc.isenabled()
    gc.enable()
    gc.freeze()  # as a server does before it forks its workers
    frozen = gc.get_freeze_count()
    plan_request(request, for_checks=False)
    assert gc.get_freeze_count() == frozen and gc.isenabled()


# git writes the diff before the planner has read any of the listing, so a copy reads the rest;
# then again with a copy that fails, which the planner notices and reads the listing anew.
PLAN = """
    import contextlib, json, sys
    from pathlib import Path
    import gradgate.bot.pipeline.paths as paths
    from gradgate.bot.git.cmdline import Pending
    from gradgate.bot.pipeline import Request, plan_request

    copies, real = [], paths.aside

    @contextlib.contextmanager
    def counted(work):
        with real(work) as copy:
            copies.append(copy is not None)
            yield copy

    def failing(*args):
        raise RuntimeError("the copy failed")

    paths.aside, Pending.ready = counted, lambda self: True
    request = Request(repo_path=Path(sys.argv[1]), base="main", head="pr")
    plans = [plan_request(request, for_checks=False).plan.as_json()]
    paths._rest = failing
    plans.append(plan_request(request, for_checks=False).plan.as_json())
    print(json.dumps({"copies": copies, "plans": plans}))
"""


def test_a_plan_whose_listing_a_copy_reads_plans_what_one_process_plans(
    project: GitRepo,
) -> None:
    here = plan_request(Request(repo_path=project.root, base="main", head="pr"), for_checks=True)
    got = fresh(PLAN, str(project.root))
    assert got["copies"] == [True, True]
    want = json.loads(json.dumps(here.plan.as_json()))
    assert got["plans"] == [want, want]
    assert want["unmatched"] == {"configs": ["**/typo_nowhere.py", "/gone/"]}  # (gaps found)


def test_a_listing_git_could_not_give_is_a_git_error(project: GitRepo) -> None:
    source = GitRepository(project.root)
    blob = project.git("rev-parse", "main:configs/train.yaml").strip()
    with pytest.raises(GitError, match="ls-tree"), source.listing(blob) as listing:
        list(listing)
    with source.listing(source.resolve("pr")) as listing:  # left early: git is stopped
        next(listing)
