"""checks.sandbox.limits: how each limit holds here, and that user code cannot lift it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from gradgate.checks.sandbox.limits import SandboxLimits, enforcement, kernel_version
from gradgate.checks.sandbox.run import SandboxMode, run_in_sandbox

ROOT = Path(__file__).parent / "targets"
LIMITS = SandboxLimits(timeout_s=20, memory_mb=512, processes=64)
NEW, OLD = (6, 1), (5, 10)


@pytest.mark.parametrize(
    ("device", "cgroup", "userns", "root", "kernel", "memory", "processes", "nproc"),
    [
        ("cpu", True, True, True, NEW, "run", "run", None),  # a cgroup holds both
        ("cpu", True, False, False, NEW, "run", "run", None),
        ("cpu", False, True, False, NEW, "process", "run", 64),  # counted per namespace
        ("cpu", False, True, False, OLD, "process", None, None),  # counted per user: not set
        ("cpu", False, True, True, NEW, "process", None, None),  # never enforced for root
        ("cpu", False, False, False, NEW, "process", None, None),  # every process of the user
        ("cuda:0", True, True, False, NEW, None, "run", None),  # CUDA: no memory cap
        ("cuda", False, True, False, NEW, None, "run", 64),
    ],
)
def test_each_limit_holds_for_the_run_only_where_the_platform_makes_it_so(
    device: str,
    cgroup: bool,
    userns: bool,
    root: bool,
    kernel: tuple[int, int],
    memory: str | None,
    processes: str | None,
    nproc: int | None,
) -> None:
    held = enforcement(
        LIMITS, device=device, cgroup=cgroup, user_namespace=userns, root=root, kernel=kernel
    )
    assert (held.memory, held.processes, held.processes_rlimit) == (memory, processes, nproc)
    assert held.memory_rlimit == ("RLIMIT_AS" if memory else None)
    assert held.memory_bytes == (512 << 20 if memory else None)


def test_no_limits_asked_means_none_applied() -> None:
    limits = SandboxLimits(memory_mb=None, processes=None)
    held = enforcement(limits, device="cpu", cgroup=False, user_namespace=True, root=False,
                       kernel=NEW)  # fmt: skip
    assert (held.memory, held.processes, held.memory_bytes, held.processes_rlimit) == (
        None, None, None, None
    )  # fmt: skip


@pytest.mark.parametrize(
    ("release", "version"),
    [("6.1.0-18-amd64", (6, 1)), ("5.14.0-362.el9.x86_64", (5, 14)), ("4.19", (4, 19)),
     ("6.18.44-fc-v595", (6, 18)), ("weird", (0, 0))],
)  # fmt: skip
def test_kernel_version_is_read_from_the_release(release: str, version: tuple[int, int]) -> None:
    assert kernel_version(release) == version


@pytest.mark.parametrize("field", ["timeout_s", "memory_mb", "processes", "result_mb"])
def test_limits_refuse_zero(field: str) -> None:
    with pytest.raises(ValueError, match="positive"):
        SandboxLimits(**{field: 0})


@pytest.mark.parametrize("sandbox", ["auto", "process"])
def test_user_code_cannot_raise_its_memory_cap_again(sandbox: SandboxMode) -> None:
    value = run_in_sandbox(
        "userpkg.hostile:raises_its_memory_cap", root=ROOT, limits=LIMITS, sandbox=sandbox
    )
    assert value["hard"] == 512 << 20  # the hard limit was lowered with the soft one
    assert value["soft"] == 512 << 20
    if sandbox == "auto" or os.geteuid() != 0:  # root keeps CAP_SYS_RESOURCE without bubblewrap
        assert value["raised"] is False


@pytest.mark.parametrize("sandbox", ["auto", "process"])
def test_processes_user_code_starts_cannot_write_on_the_result_fd(sandbox: SandboxMode) -> None:
    value = run_in_sandbox(
        "userpkg.hostile:result_fd_in_a_grandchild", root=ROOT, limits=LIMITS, sandbox=sandbox
    )
    assert value == {"grandchild_exit": errno.EBADF}
