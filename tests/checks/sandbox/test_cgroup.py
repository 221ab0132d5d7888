"""checks.sandbox.cgroup: finding where a run's cgroup can go, and one run group's life."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gradgate.checks.sandbox import cgroup

HYBRID = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
UNIFIED = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


@pytest.mark.parametrize(
    ("mountinfo", "found"),
    [
        (
            HYBRID,
            {
                "memory": Path("/sys/fs/cgroup/memory"),
                "pids": Path("/sys/fs/cgroup/pids"),
                "unified": Path("/sys/fs/cgroup/unified"),
            },
        ),
        (UNIFIED, {"unified": Path("/sys/fs/cgroup")}),
        ("", {}),
    ],
)
def test_mounts_are_read_from_mountinfo(mountinfo: str, found: dict[str, Path]) -> None:
    assert cgroup.mounts(mountinfo) == found


def test_own_cgroups_are_read_per_hierarchy() -> None:
    text = "9:name=systemd:/\n8:pids:/ci\n4:memory:/jobs/a1\n1:cpu,cpuacct:/\n0::/user.slice/x\n"
    assert cgroup.own_cgroups(text) == {
        "pids": "/ci",
        "memory": "/jobs/a1",
        "unified": "/user.slice/x",
    }


SPAWN = """\
import subprocess, time
kids = []
for _ in range(10):
    try:
        kids.append(subprocess.Popen(["sleep", "30"]))
    except OSError:
        break
print(len(kids), flush=True)
time.sleep(30)
"""


@pytest.fixture
def group() -> cgroup.RunGroup:
    made = cgroup.run_group(memory_bytes=64 << 20, processes=8)
    if made is None:
        pytest.skip("gradgate cannot make a cgroup on this machine")
    return made


def test_a_run_group_holds_what_joins_it_caps_its_processes_and_kills_them_all(
    group: cgroup.RunGroup,
) -> None:
    try:
        proc = subprocess.Popen(
            ["/bin/sh", "-c", cgroup.JOIN, "sh", *group.procs, "--", sys.executable, "-c", SPAWN],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        started = int(proc.stdout.readline())
        assert started == 7  # eight in all, the Python included
        members = {int(p) for f in group.procs for p in Path(f).read_text().split()}
        assert proc.pid in members
        assert len(members) == 8
        group.kill()
        assert proc.wait(timeout=5) < 0
        assert all(not Path(f).read_text().strip() for f in group.procs)
        assert group.oom_kills() == 0
    finally:
        group.kill()
        group.remove()
    assert not any(Path(f).parent.exists() for f in group.procs)


def test_finding_a_place_does_not_depend_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # It is decided once per process: a test (or a door) that empties PATH first must not
    # leave every later run without a cgroup.
    expected = cgroup.place()
    monkeypatch.setenv("PATH", "/nonexistent")
    assert cgroup.place.__wrapped__() == expected
