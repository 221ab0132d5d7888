"""Benchmark: the sandbox's start-up overhead for a trivial target, against a bare `python -c pass`.

A model check runs user code twice per PR (base and head), so the sandbox's own cost is paid
twice. This measures one ``run_in_sandbox`` call on a function that returns None, from a tree
of one small file, start to result: the run folder (and, under bubblewrap, the tree's copy),
the child's interpreter and gradgate's child modules, the run's cgroup where one can be made,
and bubblewrap's namespaces and mounts. The baseline is the same interpreter started bare, as a
subprocess. The three are timed in turn, round after round, so that the load of a shared
machine falls on all of them alike; each figure is the best round against the best round.
A first call of each is left out and printed: the per-process probes (is bwrap usable, where
does the interpreter live, can a cgroup be made) are paid once per `gradgate check`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from gradgate.checks.sandbox import probe
from gradgate.checks.sandbox.isolation import Isolation, SandboxMode
from gradgate.checks.sandbox.run import SandboxLimits, run_in_sandbox

ROUNDS = 15
TARGET_RATIO = 3.0
LIMITS = SandboxLimits(timeout_s=60)
NAMES = {"process": "sandbox_process_vs_python", "require": "sandbox_bwrap_vs_python"}


def figure(name: str, value: str, target: str, ok: bool) -> str:
    """One figure line in DESIGN.md's fixed format."""
    return f"figure: {name} = {value} (target {target}) {'ok' if ok else 'MISSED'}"


def bare_python() -> str:
    done = subprocess.run([sys.executable, "-c", "print('ran')"], check=True, capture_output=True)
    return done.stdout.decode().strip()


def seconds(call: Callable[[], object]) -> float:
    """The wall time of ``call``, which must have run its target: the bare interpreter and the
    sandboxed child do the same work, one print or one return of "ran"."""
    started = time.perf_counter()
    value = call()
    elapsed = time.perf_counter() - started
    assert value == "ran", value
    return elapsed


def main() -> int:
    found = probe.bubblewrap()
    modes: list[SandboxMode] = ["process"] if found.path is None else ["process", "require"]
    if found.path is None:
        print(f"bubblewrap: not measured here: {found.reason}")
    seen: list[Isolation] = []
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        root = Path(tmp)
        (root / "noop.py").write_text("def run():\n    return 'ran'\n", encoding="utf-8")

        def sandboxed(mode: SandboxMode) -> Callable[[], object]:
            return lambda: run_in_sandbox(
                "noop:run", root=root, limits=LIMITS, sandbox=mode, on_isolation=seen.append
            )

        calls: dict[str, Callable[[], object]] = {"python": bare_python}
        calls |= {mode: sandboxed(mode) for mode in modes}
        first = {name: seconds(call) for name, call in calls.items()}
        isolation = {mode: seen[i] for i, mode in enumerate(modes)}
        times: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(ROUNDS):
            for name, call in calls.items():
                times[name].append(seconds(call))
    best = {name: min(values) for name, values in times.items()}
    for name, values in times.items():
        how = ""
        if name in isolation:
            i = isolation[name]
            cgroup = f"cgroup v{i.cgroup}" if i.cgroup else "no cgroup"
            how = f"; {i.sandbox}, memory limit per {i.memory}, {cgroup}"
        print(
            f"{name}: {best[name] * 1000:.1f} ms best of {ROUNDS}, median "
            f"{statistics.median(values) * 1000:.1f}, first call {first[name] * 1000:.1f}{how}"
        )
    for mode in modes:
        ratio = best[mode] / best["python"]
        ok = ratio <= TARGET_RATIO
        print(figure(NAMES[mode], f"{ratio:.2f}", f"<= {TARGET_RATIO:.1f}", ok))
    return 0


if __name__ == "__main__":
    sys.exit(main())
