"""The plan bench's repository: 100,000 changed paths and 50 zones of 500 gitignore patterns.

A base with 80,000 files and the `.gradgate.yml`, and a head that edits all of them and adds
20,000 more, written as one `git fast-import` stream; seeded, so every run builds the same one.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

EDITED, ADDED = 80_000, 20_000
ZONES, PATTERNS_PER_ZONE = 50, 10
TOPS = ("src", "tests", "docs", "configs", "scripts", "tools", "benchmarks", "examples")
PACKAGES = (
    "nanogpt",
    "vision",
    "audio",
    "text",
    "rl",
    "distributed",
    "optim",
    "quant",
    "export",
    "serving",
    "data",
    "kernels",
)
SUBDIRS = (
    "models",
    "layers",
    "ops",
    "utils",
    "training",
    "eval",
    "io",
    "experimental",
    "attention",
    "norms",
)
STEMS = (
    "attention",
    "conv",
    "embedding",
    "loss",
    "optimizer",
    "scheduler",
    "tokenizer",
    "dataset",
    "checkpoint",
    "metrics",
    "trainer",
    "sampler",
    "mlp",
    "rotary",
    "cache",
)
EXTENSIONS = ("py",) * 12 + ("yaml", "yaml", "md", "md", "json", "cu", "cpp", "h", "txt", "ipynb")
CHECKS = ("protected", "gradient", "checkpoint", "config-docs", "api-contract")
# A clean git: neither the machine's nor the user's config may change the baseline.
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def synthetic_paths(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct, realistic-looking paths spread over ~7,000 directories."""
    paths = []
    for n in range(count):
        top, package = rng.choice(TOPS), rng.choice(PACKAGES)
        sub, deeper = rng.choice(SUBDIRS), rng.choice(SUBDIRS)
        paths.append(
            f"{top}/{package}/{sub}/{deeper}/{rng.choice(STEMS)}_{n}.{rng.choice(EXTENSIONS)}"
        )
    return paths


def zone_patterns(zone: int, rng: random.Random) -> list[str]:
    """Ten gitignore patterns: directory globs, extensions, basenames, anchored dirs, excludes."""
    package, sub = PACKAGES[zone % len(PACKAGES)], SUBDIRS[zone % len(SUBDIRS)]
    other = rng.choice(SUBDIRS)
    return [
        f"src/{package}/{sub}/**",
        f"tests/{package}/**",
        f"*.{EXTENSIONS[-1 - zone % 8]}",
        f"**/{rng.choice(STEMS)}_{rng.randrange(EDITED)}.py",
        f"**/{rng.choice(STEMS)}_{rng.randrange(EDITED)}.py",
        f"/{rng.choice(TOPS)}/{package}/{other}/",
        f"/configs/{package}/{sub}/*.yaml",
        f"docs/{package}/**/*.md",
        f"!src/{package}/experimental/**",
        f"!**/{sub}/{other}/*_cache_*",
    ]


def config_text(rng: random.Random) -> str:
    lines = ["version: 1", "always: [protected]", "zones:"]
    for zone in range(ZONES):
        lines += [f"  - name: zone-{zone:02d}", "    paths:"]
        lines += [f'      - "{pattern}"' for pattern in zone_patterns(zone, rng)]
        checks = ", ".join(rng.sample(CHECKS, 2))
        lines += [f"    checks: [{checks}]", f"    owners: ['@team-{zone % 7}']"]
    return "\n".join(lines) + "\n"


def build_repo(root: Path) -> None:
    rng = random.Random(20240601)
    config = config_text(rng).encode()
    paths = synthetic_paths(EDITED + ADDED, rng)
    edited, added = paths[:EDITED], paths[EDITED:]
    stream = [b"blob\nmark :1\ndata %d\n%s\n" % (len(config), config)]
    stream += [b"blob\nmark :2\ndata 5\nbase\n\n", b"blob\nmark :3\ndata 5\nhead\n\n"]
    for mark, ref, blob, tree in ((10, "base", 2, edited), (11, "head", 3, edited + added)):
        parent = b"from :10\n" if ref == "head" else b""
        stream.append(b"commit refs/heads/%s\nmark :%d\n" % (ref.encode(), mark))
        stream.append(
            b"committer Bench <bench@example.com> 0 +0000\ndata 4\n%s\n%s" % (ref.encode(), parent)
        )
        if ref == "base":
            stream.append(b"M 100644 :1 .gradgate.yml\n")
        stream += [b"M 100644 :%d %s\n" % (blob, path.encode()) for path in tree]
        stream.append(b"\n")
    git(root, "init", "-q", "-b", "main")
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=root, env=GIT_ENV, input=b"".join(stream), check=True
    )


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True, text=True
    )
    return done.stdout
