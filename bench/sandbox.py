"""Benchmark: the sandbox's start-up overhead for a trivial target, against a bare `python -c pass`.

A model check runs user code twice per PR (base and head), so the sandbox's own cost is paid
twice. This measures one ``run_in_sandbox`` call on a function that returns None, from a tree
of one small file, start to result: the run folder and the tree's copy, the child's interpreter
and gradgate's child modules, the cgroup where one can be made, and (bubblewrap) the
namespaces and mounts. The baseline is the same interpreter started bare, as a subprocess.
One warm-up call each first: the per-process probes (is bwrap usable, where does the
interpreter live) are paid once per `gradgate check`, not per run, and are printed apart.
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

RUNS = 15
TARGET_RATIO = 3.0
LIMITS = SandboxLimits(timeout_s=60)


def figure(name: str, value: str, target: str, ok: bool) -> str:
    """One figure line in DESIGN.md's fixed format."""
    return f"figure: {name} = {value} (target {target}) {'ok' if ok else 'MISSED'}"


def timed(call: Callable[[], object], runs: int = RUNS) -> tuple[float, float]:
    """(best, median) seconds of ``runs`` calls. The figure uses the best: on a shared machine
    the median measures the neighbours as much as the code."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def bare_python() -> None:
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        root = Path(tmp)
        (root / "noop.py").write_text("def run():\n    return None\n", encoding="utf-8")
        seen: list[Isolation] = []

        def sandboxed(mode: SandboxMode) -> Callable[[], object]:
            return lambda: run_in_sandbox(
                "noop:run",
                root=root,
                limits=LIMITS,
                sandbox=mode,
                on_isolation=seen.append,
            )

        bare_python()
        bare_s, bare_median = timed(bare_python)
        print(
            f"python -c pass: {bare_s * 1000:.1f} ms best of {RUNS}, "
            f"median {bare_median * 1000:.1f}"
        )
        started = time.perf_counter()
        found = probe.bubblewrap()
        probe_ms = (time.perf_counter() - started) * 1000
        print(f"probe for bubblewrap, once per process: {probe_ms:.1f} ms")
        modes: list[tuple[SandboxMode, str]] = [("process", "sandbox_process_vs_python")]
        if found.path is not None:
            modes.append(("require", "sandbox_bwrap_vs_python"))
        else:
            print(f"bubblewrap: not measured here: {found.reason}")
        lines = []
        for mode, name in modes:
            first = time.perf_counter()
            sandboxed(mode)()
            first_s = time.perf_counter() - first
            seconds, median = timed(sandboxed(mode))
            isolation = seen[-1]
            print(
                f"{isolation.sandbox}: {seconds * 1000:.1f} ms best of {RUNS}, median "
                f"{median * 1000:.1f}, first call {first_s * 1000:.1f}; memory limit per "
                f"{isolation.memory}, process limit "
                f"{'for the run' if isolation.processes else 'none'}, cgroup v{isolation.cgroup}"
            )
            ratio = seconds / bare_s
            lines.append(
                figure(name, f"{ratio:.2f}", f"<= {TARGET_RATIO:.1f}", ratio <= TARGET_RATIO)
            )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
