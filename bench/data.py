"""Benchmark: the data check against bare children running the same transform at both revisions.

The work: at base and at head, import the transform and run it (twice, seeded, as the check
does) on the synthetic image. The baseline: one fresh, unsandboxed Python process per revision
(interpreter start and torch import included) doing exactly that. The check runs as
`DataCheck().run` in a fresh process on a two-commit git repo: a checkout per revision, a
sandboxed child per revision (both at once where there are two cores, as the check runs them),
and the comparison. Figure: wall time as a ratio to the bare
children's. The head revision drops a BGR→RGB conversion, and the run checks the check caught it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._versus_bare import report, timed, two_revisions, versus_bare

RUNS = 3  # best of: the machine may be shared
TIME_TARGET = 1.5

PIPELINE = """\
import torch

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


def build():
    def transform(frame):
        rgb = frame.flip(0)  # BGR -> RGB
        x = torch.nn.functional.interpolate(rgb[None].float(), size=(224, 224), mode="bilinear")
        return ((x[0] / 255 - MEAN) / STD).contiguous()
    return transform
"""
HEAD = PIPELINE.replace("rgb = frame.flip(0)  # BGR -> RGB", "rgb = frame")
BARE = """\
import random, sys
import torch
sys.path.insert(0, sys.argv[1])
from pipeline import build
from gradgate_synthetic import synthetic
image = torch.tensor(synthetic(), dtype=torch.uint8).permute(2, 0, 1).contiguous()
transform = build()
for _ in range(2):
    random.seed(0); torch.manual_seed(0)
    out = transform(image).double().flatten().tolist()
print(len(out))
"""


def the_check(repo: Path, base: str, head: str) -> dict[str, Any]:
    """In this fresh process: the data check on the two commits, as the pipeline runs it."""
    from gradgate.bot.git.repository import GitRepository
    from gradgate.checks.context import CheckContext
    from gradgate.checks.data.check import DataCheck
    from gradgate.checks.data.settings import DataSettings
    from gradgate.checks.data.spec import DataSpec

    ctx = CheckContext(
        base_sha=base, head_sha=head, changes=(), source=GitRepository(repo),
        settings=DataSettings(memory_mb=None), data=DataSpec(entrypoint="pipeline.py:build"),
        python=sys.executable,
    )  # fmt: skip
    result = DataCheck().run(ctx)
    caught = any("BGR ↔ RGB" in f.message for f in result.findings)
    return {"outcome": str(result.outcome), "caught": caught, "summary": result.summary}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        print(json.dumps(the_check(Path(argv[1]), argv[2], argv[3])))
        return 0
    import importlib

    inputs = importlib.import_module("gradgate.checks.data.child.inputs")
    assert inputs.__file__ is not None

    synthetic = Path(inputs.__file__).read_text(encoding="utf-8")  # stdlib only
    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        folder = Path(tmp)
        base, head = two_revisions(
            folder, "pipeline.py", PIPELINE, HEAD, beside={"gradgate_synthetic.py": synthetic}
        )

        def bare() -> float:
            runs = [
                timed([sys.executable, "-c", BARE, str(folder / rev)]) for rev in ("base", "head")
            ]
            # The same work as the check's children: a 3 x 224 x 224 output at each revision.
            assert [out.strip() for _, out in runs] == [str(3 * 224 * 224)] * 2, runs
            return sum(seconds for seconds, _ in runs)

        check = [sys.executable, "-m", "bench.data", "--check", str(folder / "repo"), base, head]
        found = versus_bare(RUNS, bare, check)
    return report(
        "data_time_vs_bare_children", TIME_TARGET, found, bare="one per revision",
        check="data check", runs=RUNS, missed="the check missed the dropped BGR→RGB conversion",
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
