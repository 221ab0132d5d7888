"""Benchmark: the checkpoint check's load path against a naive load, and its flatness in file size.

(a) A 2 GB `.pt` and a 2 GB safetensors checkpoint of a 16-layer MLP, each measured in a fresh
interpreter that has imported torch (the baseline for memory): the naive way, once,
``model.load_state_dict(torch.load(path))`` (``safetensors.torch.load_file`` for safetensors)
into a model already built, against what the check does with the same file: read it in
gradgate's process (safetensors header / torch.save structure and pickle opcodes), then, as the
child does, build the model on the meta device, load the checkpoint's metadata
(``torch.load(weights_only=True, mmap=True)`` for `.pt`) and dry-run ``load_state_dict`` into
it, best of 5 (a 2-core machine shared with other work stalls single runs by hundreds of ms;
the first run is printed too). Figures: time ratio (target <= 0.01) and peak RSS over the
torch-imported interpreter, all runs included (target <= 50 MB). The end-to-end check (git
export, sandbox children that each import torch) is printed beside them, not a figure: it is a
constant of a few seconds, whatever the size.

(b) A 10 GB safetensors file (sparse: only the header is written) against a 10 MB one with the
same keys, each with a model of matching shapes: the check's load path, best of several runs,
as a ratio (target <= 1.5: flat in size).

Files live in a temp dir, deleted after.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._checkpoint_files import end_to_end, sparse_safetensors

ROOT = Path(__file__).resolve().parents[1]
LAYERS, IN, OUT = 16, 8192, 4096  # 16 x 32M float32 weights: 2 GiB
SMALL, LARGE = 10 << 20, 10 << 30
FLAT_LAYERS = 64
RUNS = 15  # (b): best of, each size in turn
RUNS_LOAD = 5  # (a): the check's load path, best of (the naive load runs once)
TARGET_TIME, TARGET_RSS_MB, TARGET_FLAT = 0.01, 50.0, 1.5


def figure(name: str, value: str, target: str, ok: bool) -> str:
    """One figure line in DESIGN.md's fixed format."""
    return f"figure: {name} = {value} (target {target}) {'ok' if ok else 'MISSED'}"


# --- the model and the check's load path (run in workers) -----------------------------------


def mlp(layers: int, width_in: int, width_out: int, *, device: str) -> Any:
    import torch
    from torch import nn

    with torch.device(device):
        return nn.Sequential(*(nn.Linear(width_in, width_out) for _ in range(layers)))


def check_path(path: Path, *, layers: int, width_in: int, width_out: int) -> None:
    """What the checkpoint check does with one reference, in one process."""
    from gradgate.checks.checkpoint.child.describe import describe
    from gradgate.checks.checkpoint.child.dry_run import dry_run
    from gradgate.checks.checkpoint.child.load import from_entries, load_file
    from gradgate.checks.checkpoint.read.reference import read_reference
    from gradgate.checks.checkpoint.read.sniff import Format
    from gradgate.checks.checkpoint.tensors import entries_to_json

    read = read_reference(path)  # gradgate's process: no torch needed here
    assert not read.foreign
    model = mlp(layers, width_in, width_out, device="meta")  # the child from here on
    info = describe(model)
    if read.entries is not None:
        state = from_entries(entries_to_json(read.entries), None, None)
    else:
        state, _ = load_file(str(path), zip_format=read.format is Format.TORCH_ZIP, key=None)
    result = dry_run(model, state)
    assert not (result["missing"] or result["unexpected"] or result["shapes"]), result
    assert len(info["entries"]) == 2 * layers


def naive(path: Path) -> None:
    import torch

    model = mlp(LAYERS, IN, OUT, device="meta").to_empty(device="cpu")  # built before timing
    started = time.perf_counter()
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        model.load_state_dict(load_file(str(path)))
    else:
        model.load_state_dict(torch.load(path))
    _report(started)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


_BASE_MB = 0.0


def _report(started: float) -> None:
    elapsed = time.perf_counter() - started
    print(json.dumps({"seconds": elapsed, "rss_mb": max(0.0, _peak_mb() - _BASE_MB)}))


def worker(argv: list[str]) -> None:
    global _BASE_MB
    # The baseline: an interpreter that has imported torch, and gradgate's modules (their
    # import is a constant of the process, not a cost of the checkpoint).
    import torch  # noqa: F401

    _BASE_MB = _peak_mb()
    mode, path = argv[0], Path(argv[1])
    if mode == "naive":
        naive(path)
        return
    if mode == "write":
        started = time.perf_counter()
        write_checkpoint(path)
        _report(started)
        return
    if mode == "flat":  # the small and the large file in turn, so drift hits both alike
        small, large = path, Path(argv[2])
        shapes = [tuple(int(n) for n in argv[i : i + 3]) for i in (3, 6)]
        best = [float("inf"), float("inf")]
        for _ in range(RUNS):
            for index, file in enumerate((small, large)):
                layers, width_in, width_out = shapes[index]
                started = time.perf_counter()
                check_path(file, layers=layers, width_in=width_in, width_out=width_out)
                best[index] = min(best[index], time.perf_counter() - started)
        print(json.dumps({"small": best[0], "large": best[1]}))
        return
    layers, width_in, width_out = (int(n) for n in argv[2:5])
    times = []
    for _ in range(RUNS_LOAD):
        started = time.perf_counter()
        check_path(path, layers=layers, width_in=width_in, width_out=width_out)
        times.append(time.perf_counter() - started)
    peak = max(0.0, _peak_mb() - _BASE_MB)
    print(json.dumps({"seconds": min(times), "first": times[0], "rss_mb": peak}))


def write_checkpoint(path: Path) -> None:
    import torch

    state = mlp(LAYERS, IN, OUT, device="cpu").state_dict()
    if path.suffix == ".safetensors":
        from safetensors.torch import save_file

        save_file(state, str(path))
    else:
        torch.save(state, path)


# --- the parent: files, workers, figures ----------------------------------------------------


def run_worker(*args: str) -> dict[str, float]:
    """Run this module's worker in a fresh interpreter; its last output line is JSON."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.checkpoint", "--worker", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    lines = []
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-checkpoint-") as scratch:
        folder = Path(scratch)
        widths = (str(LAYERS), str(IN), str(OUT))
        for kind, name in (("pt", "model.pt"), ("safetensors", "model.safetensors")):
            path = folder / name
            run_worker("write", str(path))
            size_gb = path.stat().st_size / (1 << 30)
            slow = run_worker("naive", str(path))
            fast = run_worker("check", str(path), *widths)
            ratio = fast["seconds"] / slow["seconds"]
            print(
                f"{kind}: {size_gb:.2f} GB; naive load {slow['seconds']:.2f} s, "
                f"+{slow['rss_mb']:.0f} MB; check {fast['seconds'] * 1000:.1f} ms (best of "
                f"{RUNS_LOAD}; the first {fast['first'] * 1000:.1f} ms), +{fast['rss_mb']:.1f} MB"
            )
            print(
                f"{kind}: end-to-end check (git export, 2 children): "
                f"{end_to_end(folder / f'e2e-{kind}', path, LAYERS, IN, OUT):.1f} s (not a figure)"
            )
            lines.append(
                figure(
                    f"checkpoint_{kind}_time_vs_naive_load",
                    f"{ratio:.4f}",
                    f"<= {TARGET_TIME}",
                    ratio <= TARGET_TIME,
                )
            )
            lines.append(
                figure(
                    f"checkpoint_{kind}_rss_mb_over_torch",
                    f"{fast['rss_mb']:.1f}",
                    f"<= {TARGET_RSS_MB:.0f}",
                    fast["rss_mb"] <= TARGET_RSS_MB,
                )
            )
            path.unlink()
        files, args = [], []
        for size in (SMALL, LARGE):
            path = folder / f"flat-{size}.safetensors"
            width_in, width_out = sparse_safetensors(path, total=size, layers=FLAT_LAYERS)
            files.append(str(path))
            args += [str(FLAT_LAYERS), str(width_in), str(width_out)]
        timings = run_worker("flat", *files, *args)
        for label, key, file in (("10 MB", "small", files[0]), ("10 GB", "large", files[1])):
            apparent = Path(file).stat().st_size / (1 << 20)
            print(
                f"{label} safetensors ({apparent:,.0f} MB apparent, {FLAT_LAYERS * 2} keys): "
                f"check {timings[key] * 1000:.1f} ms (best of {RUNS})"
            )
            Path(file).unlink()
        flat = timings["large"] / timings["small"]
        lines.append(
            figure(
                "checkpoint_10gb_vs_10mb_safetensors",
                f"{flat:.2f}",
                f"<= {TARGET_FLAT}",
                flat <= TARGET_FLAT,
            )
        )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2:])
        sys.exit(0)
    sys.exit(main())
