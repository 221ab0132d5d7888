"""The checkpoint bench's inputs: sparse safetensors files and the end-to-end repository.

bench/checkpoint.py measures with them; they live apart so each module holds one concern.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any


def sparse_safetensors(path: Path, *, total: int, layers: int) -> tuple[int, int]:
    """A safetensors file of ``layers`` Linear layers, about ``total`` bytes, only the header
    written; returns the layers' (in, out) widths."""
    width_in = 1024
    width_out = max(1, total // (layers * width_in * 4))
    header: dict[str, Any] = {}
    offset = 0
    for i in range(layers):
        for name, shape in (("weight", [width_out, width_in]), ("bias", [width_out])):
            size = 4
            for n in shape:
                size *= n
            header[f"{i}.{name}"] = {
                "dtype": "F32",
                "shape": shape,
                "data_offsets": [offset, offset + size],
            }
            offset += size
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with path.open("wb") as file:
        file.write(len(raw).to_bytes(8, "little") + raw)
        file.truncate(8 + len(raw) + offset)
    return width_in, width_out


def end_to_end(scratch: Path, reference: Path, layers: int, width_in: int, width_out: int) -> float:
    """The whole check through the pipeline (git export, two sandbox children) on a repository
    whose model is ``layers`` Linear(width_in, width_out) layers, as in ``reference``."""
    from gradgate.bot.pipeline import Request, run_request

    repo = scratch / "repo"
    repo.mkdir(parents=True)
    (repo / "model.py").write_text(
        "import torch\nfrom torch import nn\n\n\ndef build():\n"
        f"    layers = (nn.Linear({width_in}, {width_out}) for _ in range({layers}))\n"
        f"    return nn.Sequential(*layers), torch.zeros(1, {width_in})\n"
    )
    config = {
        "always": [],
        "zones": [{"name": "m", "paths": ["model.py"], "checks": ["checkpoint"]}],
        "model": {"entrypoint": "model:build"},
        "checks": {"checkpoint": {"references": [str(reference)], "equivalence": False}},
    }
    (repo / ".gradgate.yml").write_text(json.dumps(config))
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b.invalid",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b.invalid",
    }
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["commit", "-qm", "base"],
        ["checkout", "-qb", "pr"],
    ):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    (repo / "model.py").write_text((repo / "model.py").read_text() + "\nVERSION = 2\n")
    subprocess.run(["git", "commit", "-qam", "pr"], cwd=repo, env=env, check=True)
    started = time.perf_counter()
    report = run_request(Request(repo_path=repo, base="main", head="pr", only=("checkpoint",)))
    elapsed = time.perf_counter() - started
    result = report.result_for("checkpoint")
    assert result is not None and result.outcome.value == "pass", result
    return elapsed
