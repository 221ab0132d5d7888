"""Benchmark: the full gate on real release history: consecutive releases of model libraries as
base -> head pull requests, every blocking finding judged by a person in a verdict file.

NOT run by the test suite, nor by `python -m bench`: it needs the registry once, and a pair
whose model code changed takes minutes (about 6 for transformers on two busy cores, most of it
importing the library in each child), hours for all pairs. Run it by hand:
``python -m bench.realworld --python build/realworld/venv/bin/python [--library L] [--pairs N]``.

Setup, once:
  * a bench environment (not the dev venv) with the libraries' dependencies and the pinned
    torch, e.g. ``python -m venv build/realworld/venv && build/realworld/venv/bin/pip install
    torch==2.13.0 torchvision transformers diffusers open-clip-torch
    segmentation-models-pytorch huggingface-hub==1.33.0 httpx efficientnet-pytorch
    pretrainedmodels six einops einx loguru torch-einops-utils`` (that hub release satisfies
    every release replayed here; efficientnet-pytorch, pretrainedmodels and six are older
    releases' dependencies, the last four x-transformers'); pass its interpreter with
    ``--python``. For one library, its own dependencies are enough (``--library``). The
    libraries themselves are imported from each release's tree, which comes first on the
    child's path. torchvision's registry wheels are CUDA builds: beside the CPU torch the
    factories declare the two op schemas it needs to import (``_cpu_torchvision.py``).
  * the releases: each release's wheel is fetched with ``pip download --no-deps`` into
    ``build/realworld/dists`` (ignored by git), only when it is not there yet.

Each library becomes a scratch git repository under ``build/realworld/repos/<library>``: one
commit per release (the wheel's package folders, without its dist-info, and its long
description as ``README.md``, which config-docs reads), tagged ``v<version>``.
Each consecutive pair then goes through ``gradgate check --format json`` with a
``.gradgate.yml`` the bench writes to ``build/realworld/configs/<library>`` next to a copy of the
library's factory from ``bench/realworld_models/`` (tiny models from config classes,
``encoder_weights=None``: nothing is downloaded at run time). Every blocking finding must be
judged in ``bench/realworld-verdicts.yaml`` (see ``_realworld_verdicts``), and so must every
kind of warning (useful or noise); per pair it prints the blocking, warning and note items by
kind, then the figures (false alarms; warnings and notes per pull request; notes repeated from
the previous pair about a file this pair did not change), the median seconds per pair, and exits
non-zero on a block or warning kind nobody has judged, or a check that errored.
Results are kept per pair in ``build/realworld/results``; ``--reuse`` reads
them instead of running a pair again (for a run spread over several sittings).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._realworld_verdicts import (
    Block,
    blocks_in,
    items_in,
    items_line,
    median_seconds,
    notes_in,
    parse_verdicts,
    parse_warning_verdicts,
    repeated_notes,
    tally,
    tally_warnings,
    unjudged_entries,
    unjudged_warning_entries,
)

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "realworld"
MODELS = ROOT / "bench" / "realworld_models"
VERDICT_FILE = ROOT / "bench" / "realworld-verdicts.yaml"
PAIR_TIMEOUT_S = 1800


@dataclass(frozen=True, slots=True)
class Library:
    name: str  # the distribution's name on the registry
    factory: str  # its file in bench/realworld_models
    zone: tuple[str, ...]  # the model zone's patterns
    versions: tuple[str, ...]  # consecutive releases, oldest first


LIBRARIES = (
    Library(
        "transformers",
        "transformers_families.py",
        ("/transformers/models/gpt2/**", "/transformers/models/bert/**",
         "/transformers/models/llama/**", "/transformers/modeling_*.py",
         "/transformers/pytorch_utils.py", "/transformers/activations.py",
         "/transformers/integrations/sdpa_attention.py", "/transformers/masking_utils.py"),
        ("5.16.0", "5.16.1", "5.17.0", "5.18.0", "5.19.0", "5.20.0", "5.20.1", "5.20.2",
         "5.21.0", "5.21.1", "5.22.0", "5.22.1", "5.22.2", "5.23.0", "5.24.0"),
    ),
    Library(
        "diffusers",
        "diffusers_unet_vae.py",
        ("/diffusers/models/**",),
        ("0.36.0", "0.37.0", "0.37.1", "0.38.0", "0.39.0", "0.40.0", "0.41.0", "0.42.0",
         "0.42.1"),
    ),
    Library(
        "open-clip-torch",
        "open_clip_tiny.py",
        ("/open_clip/*.py",),
        ("2.30.0", "2.31.0", "2.32.0", "3.0.0", "3.1.0", "3.2.0", "3.3.0"),
    ),
    Library(
        "segmentation-models-pytorch",
        "smp_unet_fpn.py",
        ("/segmentation_models_pytorch/**",),
        ("0.4.0", "0.5.0", "0.6.0"),
    ),
    Library(
        "x-transformers",
        "x_transformers_tiny.py",
        ("/x_transformers/x_transformers.py", "/x_transformers/attend.py"),
        ("2.29.0", "2.29.1", "2.29.2", "2.29.3", "2.29.4", "2.30.0", "2.30.1", "2.30.2",
         "2.30.3", "2.30.4", "2.30.5", "2.31.0", "2.31.2", "2.31.4", "2.31.5", "2.31.6",
         "2.31.7", "2.31.8", "2.31.10"),
    ),
)  # fmt: skip

CONFIG = """\
# Written by bench/realworld.py for {name}: the model checks on the model code, and the
# static checks on every changed file of the library.
version: 1
always: [protected]
model:
  entrypoint: "{factory}:build"
zones:
  - name: model-core
    paths: {paths}
    checks: [protected, gradient, checkpoint]
  - name: library
    paths: ["**/*.py", "README.md"]
    checks: [api-contract, dl-lint, config-docs]
"""
# Static checks added after the first runs: cached pairs catch up on just those.
STATIC = ("api-contract", "dl-lint", "config-docs")


def fetch(library: Library, version: str) -> Path:
    dists = WORK / "dists"
    stem = library.name.replace("-", "_")
    found = sorted(dists.glob(f"{stem}-{version}-*.whl"))
    if not found:
        dists.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             f"{library.name}=={version}", "-d", str(dists)],
            check=True,
        )  # fmt: skip
        found = sorted(dists.glob(f"{stem}-{version}-*.whl"))
    return found[0]


def long_description(wheel: zipfile.ZipFile) -> str:
    """The release's README: the body of its METADATA (after the headers' blank line)."""
    names = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    if not names:
        return ""
    text = wheel.read(names[0]).decode("utf-8", errors="replace")
    return text.partition("\n\n")[2]


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
           "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(WORK), "PATH": "/usr/bin:/bin"}  # fmt: skip
    done = subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                          text=True)  # fmt: skip
    return done.stdout.strip()


def history(library: Library) -> Path:
    """The scratch repository with one tagged commit per release (built once, then reused)."""
    repo = WORK / "repos" / library.name
    if repo.is_dir() and set(git(repo, "tag").split()) >= {f"v{v}" for v in library.versions}:
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for version in library.versions:
        for entry in repo.iterdir():
            if entry.name != ".git":
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        with zipfile.ZipFile(fetch(library, version)) as wheel:
            members = [n for n in wheel.namelist() if not n.split("/")[0].endswith(".dist-info")]
            wheel.extractall(repo, members=members)
            readme = long_description(wheel)
            if readme:
                (repo / "README.md").write_text(readme, encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{library.name} {version}")
        git(repo, "tag", f"v{version}")
    return repo


def config_for(library: Library) -> Path:
    folder = WORK / "configs" / library.name
    folder.mkdir(parents=True, exist_ok=True)
    for name in (library.factory, "_cpu_torchvision.py"):
        shutil.copyfile(MODELS / name, folder / name)
    paths = json.dumps(list(library.zone))
    text = CONFIG.format(name=library.name, factory=library.factory, paths=paths)
    (folder / ".gradgate.yml").write_text(text, encoding="utf-8")
    return folder / ".gradgate.yml"


def run_pair(library: Library, base: str, head: str, python: str, reuse: bool) -> dict[str, Any]:
    """The gate's JSON report for one pair and the seconds it took (cached per pair)."""
    cached = WORK / "results" / library.name / f"{base}..{head}.json"
    repo, config = history(library), config_for(library)
    if reuse and cached.is_file():
        result = dict(json.loads(cached.read_text()))
        ran = result.get("static")
        ran = ["api-contract", "dl-lint"] if ran is True else list(ran or ())
        missing = [check for check in STATIC if check not in ran]
        for check in missing:  # a run from before STATIC grew: run just those
            seconds, report = gate(repo, config, base, head, python, "--only", check)
            rows = [r for r in report.get("checks", ()) if r.get("name") == check]
            kept = [r for r in result["report"].get("checks", ()) if r.get("name") != check]
            result["report"]["checks"] = kept + (rows or [error_row(check, report)])
            result["seconds"] += seconds
        if missing:
            result["static"] = list(STATIC)
            cached.write_text(json.dumps(result), encoding="utf-8")
        return result
    seconds, report = gate(repo, config, base, head, python)
    result = {"seconds": seconds, "report": report, "static": list(STATIC)}
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(result), encoding="utf-8")
    return result


def gate(
    repo: Path, config: Path, base: str, head: str, python: str, *extra: str
) -> tuple[float, dict[str, Any]]:
    """`gradgate check --format json` on one pair: the seconds it took and its report."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "gradgate.bot", "check", "--repo", str(repo), "--base",
         f"v{base}", "--head", f"v{head}", "--config", str(config), "--python", python,
         "--format", "json", *extra],
        capture_output=True, text=True, timeout=PAIR_TIMEOUT_S, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    try:
        return seconds, dict(json.loads(done.stdout))
    except json.JSONDecodeError:
        return seconds, {"verdict": "error", "error": done.stderr[-2000:], "checks": []}


def error_row(check: str, report: dict[str, Any]) -> dict[str, Any]:
    """A check that gave no row (the gate itself failed) counts as an error, never a pass."""
    return {"name": check, "outcome": "error", "summary": report.get("error", "no result")}


def errors_in(report: dict[str, Any]) -> list[str]:
    found = [f"the gate: {report['error']}"] if report.get("error") else []
    return found + [
        f"{row['name']}: {row.get('summary')}"
        + "".join(f"\n      {f['message'][:400]}" for f in row.get("findings", ())[:2])
        for row in report.get("checks", ())
        if row.get("outcome") == "error"
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.realworld", description=__doc__)
    parser.add_argument("--python", required=True, help="the bench environment's interpreter")
    parser.add_argument("--library", action="append", help="only this library (repeatable)")
    parser.add_argument("--pairs", type=int, help="at most this many pairs per library")
    parser.add_argument("--reuse", action="store_true", help="reuse results of earlier runs")
    args = parser.parse_args(argv)
    python = os.path.abspath(args.python)  # not resolved: a venv's python is a symlink
    judged = VERDICT_FILE.read_text(encoding="utf-8")
    verdicts, warning_verdicts = parse_verdicts(judged), parse_warning_verdicts(judged)
    chosen = [lib for lib in LIBRARIES if not args.library or lib.name in args.library]
    blocks: list[Block] = []
    per_pair: list[dict[str, Counter[str]]] = []
    seconds: list[float] = []
    errors: list[str] = []
    repeated: list[str] = []
    for library in chosen:
        pairs = list(zip(library.versions, library.versions[1:], strict=False))
        previous: set[Any] = set()
        for base, head in pairs[: args.pairs]:
            pair = f"{base}..{head}"
            result = run_pair(library, base, head, python, args.reuse)
            report = result["report"]
            found = blocks_in(library.name, pair, report)
            seconds.append(result["seconds"])
            errors += [f"{library.name} {pair}: {e}" for e in errors_in(report)]
            outcomes = ", ".join(f"{r['name']} {r['outcome']}" for r in report.get("checks", ()))
            items = items_in(report)
            per_pair.append(items)
            notes = notes_in(report)
            changed = git(history(library), "diff", "--name-only", f"v{base}", f"v{head}")
            again = repeated_notes(previous, notes, changed.split())
            repeated += [f"{library.name} {pair}: {n[0]} {n[1]} @ {n[2] or '(no file)'}"
                         for n in again]  # fmt: skip
            previous = notes
            print(f"{library.name} {pair}: {result['seconds']:.0f} s; {outcomes or 'no checks'}"
                  f"; {items_line(items)}", flush=True)  # fmt: skip
            for block in found:
                verdict = verdicts.get(block.key)
                said = f"{verdict.verdict}: {verdict.reason}" if verdict else "NOT JUDGED"
                print(f"  block {block.check}: {block.finding} -> {said}")
            blocks += found
    counted = tally(blocks, verdicts)
    warned = tally_warnings(per_pair, warning_verdicts)
    for error in errors:
        print(f"error {error}")
    if counted.unjudged:
        print(f"{len(counted.unjudged)} blocks nobody has judged; add to {VERDICT_FILE.name}:")
        print(unjudged_entries(counted.unjudged), end="")
    print(
        f"pairs: {len(seconds)}; median per pair: {median_seconds(seconds):.1f} s; "
        f"blocks: {counted.blocks} ({counted.true} true, {counted.intended} intended)"
    )
    if warned.unjudged:
        print(
            f"{len(warned.unjudged)} warning kinds nobody has judged; add to {VERDICT_FILE.name}:"
        )
        print(unjudged_warning_entries(warned.unjudged), end="")
    for kind in warned.noise:
        print(f"noise: {kind}: {warning_verdicts[kind].reason}")
    for note in repeated:
        print(f"repeated note {note}")
    all_notes = sum(sum(items["note"].values()) for items in per_pair)
    print(f"notes per pull request: {all_notes / max(len(per_pair), 1):.2f}")
    print(counted.figure())
    print(warned.figure())
    print(
        f"figure: realworld_repeated_notes = {len(repeated)} (target 0) "
        f"{'ok' if not repeated else 'MISSED'}"
    )
    return 1 if counted.unjudged or warned.unjudged or errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
