"""The sandbox's limits, and how each one is enforced on this platform (pure).

Memory and the number of processes are limited for the whole run — the child and everything it
starts — where a cgroup can be made for the run (``checks.sandbox.cgroup``). Elsewhere:

- memory: RLIMIT_AS caps each process on its own (CPU runs only: CUDA reserves far more
  address space than it uses, so an address-space cap breaks it);
- processes: RLIMIT_NPROC counts the processes and threads of a user. Inside bubblewrap's user
  namespace, on Linux 5.14 or newer, the count is kept per namespace, so it is a limit for the
  whole run. Outside one it would count every process of the user on the machine, and the
  kernel never enforces it for root (uid 0 in the initial namespace, whatever capabilities
  were dropped: verified on Linux 6.x with bubblewrap 0.8), so there it is not set.

The child applies the rlimits to itself before user code runs and lowers the hard limit too,
so user code cannot raise them again (unless it has CAP_SYS_RESOURCE: root without bubblewrap).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradgate.checks.sandbox.isolation import Scope

# The first kernel that counts RLIMIT_NPROC per user namespace (the "ucounts" rework).
NPROC_PER_NAMESPACE = (5, 14)


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    timeout_s: float = 600.0
    # Memory cap in MB, CPU devices only; None: no cap. For the whole run where a cgroup can
    # be made, else an address-space cap (RLIMIT_AS) per process. CUDA reserves far more
    # virtual address space than it uses, so on cuda the cap is not applied: GPU memory is
    # bounded by torch.cuda.OutOfMemoryError and host memory by the runner (an OOM kill is
    # reported as kind "memory").
    memory_mb: int | None = 4096
    result_mb: int = 64  # the largest JSON result accepted
    # Processes and threads the run may have at once (torch starts a thread per core, and
    # DataLoader workers start their own); None: no limit.
    processes: int | None = 1024
    cgroup: bool = True  # False: never make a cgroup for the run (rlimits only)
    # What the run may write to its /tmp, HOME and tree, in MB (``checks.sandbox.disk``);
    # None: no cap.
    disk_mb: int | None = 2048

    def __post_init__(self) -> None:
        memory_ok = self.memory_mb is None or self.memory_mb > 0
        processes_ok = self.processes is None or self.processes > 0
        disk_ok = self.disk_mb is None or self.disk_mb > 0
        if not (
            self.timeout_s > 0 and self.result_mb > 0 and memory_ok and processes_ok and disk_ok
        ):
            raise ValueError(f"sandbox limits must be positive: {self}")  # NaN fails too


@dataclass(frozen=True, slots=True)
class Enforcement:
    """How the limits are enforced for one run: what the child applies, what the report says."""

    memory_bytes: int | None  # the cgroup's memory limit and/or the child's RLIMIT_AS
    memory_rlimit: str | None  # "RLIMIT_AS", or None: the child sets no memory rlimit
    memory: Scope | None
    processes_rlimit: int | None  # the child's RLIMIT_NPROC, or None: not set
    processes: Scope | None


def memory_rlimit(device: str) -> str | None:
    """The ``resource`` limit that caps the child's memory on ``device``; None: no cap there."""
    return "RLIMIT_AS" if device.partition(":")[0] == "cpu" else None


def enforcement(
    limits: SandboxLimits,
    *,
    device: str,
    cgroup: bool,
    user_namespace: bool,
    root: bool,
    kernel: tuple[int, int],
) -> Enforcement:
    """How ``limits`` hold for a run on ``device``: through the run's cgroup (``cgroup``: one
    was made, with these limits), else through rlimits where those mean what they say."""
    rlimit = memory_rlimit(device)
    capped = limits.memory_mb is not None and rlimit is not None
    memory: Scope | None = ("run" if cgroup else "process") if capped else None
    nproc = None
    processes: Scope | None = None
    if limits.processes is not None:
        if cgroup:
            processes = "run"
        elif user_namespace and not root and kernel >= NPROC_PER_NAMESPACE:
            nproc, processes = limits.processes, "run"
    return Enforcement(
        memory_bytes=limits.memory_mb << 20 if capped and limits.memory_mb else None,
        # Kept beside a cgroup: one process over the cap then fails with MemoryError, a
        # clearer message than the OOM killer's SIGKILL.
        memory_rlimit=rlimit if capped else None,
        memory=memory,
        processes_rlimit=nproc,
        processes=processes,
    )


def kernel_version(release: str) -> tuple[int, int]:
    """``os.uname().release`` ("6.1.0-18-amd64") -> (6, 1); (0, 0) when unreadable."""
    parts = release.split(".")
    try:
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)
    except (IndexError, ValueError):
        return (0, 0)
