"""How one sandbox run was isolated, as a value the report can state; the sandbox modes.

A run says what actually held, not what was asked for: bubblewrap or process-level only (and
why), whether the memory cap and the process limit held for the whole run or only per process,
whether user code could reach the network, and whether every process it started was stopped
at the end. ``checks.sandbox.run`` builds it; ``run_user_code`` records it on the check's
context; the pipeline puts the weakest one of a check on its result, and the report says it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

# auto: bubblewrap where it works, else process-level isolation (and the report says so).
# require: no bubblewrap is an error. untrusted: require, for code from outside the repository
# (a fork's approved head), whatever the config says; its error says so. process: process-level
# only (tests, benchmarks).
SandboxMode = Literal["auto", "require", "untrusted", "process"]
# run: held for the child and everything it started together; process: for each process
# alone (an rlimit); None: not limited.
Scope = Literal["run", "process"]


@dataclass(frozen=True, slots=True)
class Isolation:
    sandbox: Literal["bubblewrap", "process"]
    reason: str | None = None  # why not bubblewrap, when the sandbox is "process"
    memory: Scope | None = None  # how the memory cap held; None: no cap (or a CUDA run)
    processes: Scope | None = None  # how the process limit held; None: not limited
    network: bool = True  # user code could reach the network
    contained: bool = False  # every process it started was stopped when the run ended
    cgroup: int | None = None  # the cgroup version that held the whole-run limits, if any
    # How the disk cap held (checks.sandbox.disk): "tmpfs" (a filesystem of that size) or
    # "watched" (measured, process-level); None: no cap.
    disk: Literal["tmpfs", "watched"] | None = None
    disk_mb: int | None = None  # the cap, in MB

    @property
    def strength(self) -> tuple[bool, bool, bool, bool, bool, bool]:
        """Orders runs from the weakest isolation to the strongest."""
        return (
            self.sandbox == "bubblewrap",
            self.contained,
            not self.network,
            self.memory == "run",
            self.processes == "run",
            self.disk == "tmpfs",
        )


def weakest(isolations: Iterable[Isolation]) -> Isolation | None:
    """The isolation a report states for a check: its weakest run's; None: no user code ran."""
    return min(isolations, key=lambda i: i.strength, default=None)
