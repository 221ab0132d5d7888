"""The disk cap (issue 18): what user code writes to its /tmp, HOME and tree is bounded, and
going past the bound is a "disk" error that names the limit, at once, not at the timeout."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox.isolation import Isolation
from gradgate.checks.sandbox.limits import SandboxLimits
from gradgate.checks.sandbox.run import run_in_sandbox

TARGETS = Path(__file__).parent / "targets"
# The timeout is far above what filling 16 MB takes: a run that ends by timeout fails the test.
LIMITS = SandboxLimits(timeout_s=300, memory_mb=1024, disk_mb=16)


def copy_of_targets(tmp_path: Path) -> Path:
    """A tree of its own, so what process-level runs write stays out of the repository."""
    root = tmp_path / "tree"
    shutil.copytree(TARGETS / "userpkg", root / "userpkg")
    return root


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.parametrize("where", ["tmp", "home", "tree"])
def test_filling_the_sandbox_disk_is_a_disk_error_naming_the_limit(where: str) -> None:
    seen: list[Isolation] = []
    with pytest.raises(SandboxError) as caught:
        run_in_sandbox("userpkg.disk:fills", root=TARGETS, kwargs={"where": where},
                       limits=LIMITS, sandbox="require", on_isolation=seen.append)  # fmt: skip
    assert caught.value.kind == "disk"
    assert "16 MB" in str(caught.value) and "disk_mb" in str(caught.value)
    assert (seen[0].disk, seen[0].disk_mb) == ("tmpfs", 16)


@pytest.mark.usefixtures("bubblewrap")
def test_the_sandbox_tmp_reports_its_cap_not_the_hosts_free_space(tmp_path: Path) -> None:
    size = run_in_sandbox("userpkg.disk:tmp_size", root=copy_of_targets(tmp_path),
                          limits=LIMITS, sandbox="require")  # fmt: skip
    assert size["total"] <= 16 << 20


@pytest.mark.usefixtures("bubblewrap")
def test_a_tree_under_tmp_shares_the_one_capped_filesystem(tmp_path: Path) -> None:
    with pytest.raises(SandboxError) as caught:
        run_in_sandbox("userpkg.disk:fills", root=copy_of_targets(tmp_path),
                       kwargs={"where": "tree"}, limits=LIMITS, sandbox="require")  # fmt: skip
    assert caught.value.kind == "disk"


def test_without_bubblewrap_the_run_folder_is_watched_and_the_run_stopped(tmp_path: Path) -> None:
    seen: list[Isolation] = []
    with pytest.raises(SandboxError) as caught:
        run_in_sandbox("userpkg.disk:fills", root=copy_of_targets(tmp_path),
                       kwargs={"where": "tmp"}, limits=LIMITS, sandbox="process",
                       on_isolation=seen.append)  # fmt: skip
    assert caught.value.kind == "disk"
    assert "16 MB" in str(caught.value) and "disk_mb" in str(caught.value)
    assert (seen[0].disk, seen[0].disk_mb) == ("watched", 16)


def test_a_run_within_the_cap_is_untouched(tmp_path: Path) -> None:
    assert run_in_sandbox("userpkg.disk:fills", root=copy_of_targets(tmp_path),
                          kwargs={"where": "tmp", "files": 4}, limits=LIMITS) == 4  # fmt: skip
