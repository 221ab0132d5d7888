"""Benchmark: `gradgate init --print` on a generated repository the size of timm.

Builds a synthetic repository in a temp dir (one `git fast-import` stream): a package of 1,700
Python files of ~12 KB each, laid out like timm (models/, layers/ of nn.Module subclasses, many
deriving from the package's own base classes; data/, optim/, utils/ without), plus docs,
configs, a CODEOWNERS file and training scripts. The figure is the whole command in process
after start-up: list the tracked files, read them from git, survey them, render the file. The
baseline is reading the same files from git and nothing else (`git cat-file --batch`).
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

from bench.plan import figure

PYTHON_FILES = 1_700
TARGET_S = 2.0
RUNS = 3
FOLDERS = {"models": 0.55, "layers": 0.2, "data": 0.1, "optim": 0.05, "utils": 0.1}
FILLER = (
    "        x = self.norm(x)\n"
    "        x = x + self.drop_path(self.attn(self.norm1(x)))  # the residual branch\n"
    "        return self.mlp(x) if self.training else x.detach()\n"
)


def _python_file(folder: str, index: int, rng: random.Random) -> str:
    out = StringIO()
    out.write('"""Generated."""\nimport torch\nimport torch.nn as nn\n\n')
    modules = folder in ("models", "layers")
    for n in range(rng.randint(3, 8)):
        base = (
            rng.choice(["nn.Module", "nn.Sequential", "BaseBlock", "object"])
            if modules
            else "object"
        )
        out.write(f"\n\nclass C{index}x{n}({base}):\n    def forward(self, x):\n")
        out.write(FILLER * rng.randint(12, 30))
    return out.getvalue()


def build_repo(repo: Path) -> None:
    rng = random.Random(0)
    files: dict[str, str] = {
        "pyproject.toml": '[project]\nname = "timmish"\n',
        "timmish/__init__.py": "",
        "timmish/layers/base.py": "import torch.nn as nn\nclass BaseBlock(nn.Module):\n    pass\n",
        "train.py": "loss.backward()\noptimizer.step()\n",
        "README.md": "# timmish\n" + "Some words.\n" * 200,
        "CODEOWNERS": "* @core\ntimmish/layers/ @layers\n",
    }
    names = list(FOLDERS)
    weights = list(FOLDERS.values())
    for index in range(PYTHON_FILES - 2):
        folder = rng.choices(names, weights)[0]
        files[f"timmish/{folder}/m{index:04d}.py"] = _python_file(folder, index, rng)
    for index in range(300):
        files[f"docs/page{index:03d}.md"] = "# Page\n" + "Text.\n" * 100
    for index in range(50):
        files[f"configs/exp{index:02d}.yaml"] = f"lr: {index}e-4\nbatch_size: 64\n"
    stream = StringIO()
    stream.write("commit refs/heads/main\ncommitter B <b@e> 0 +0000\ndata 4\nbase\n")
    for path, text in files.items():
        data = text.encode()
        stream.write(f"M 100644 inline {path}\ndata {len(data)}\n")
        stream.write(text + "\n")
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream.getvalue().encode(),
                   check=True)  # fmt: skip


def best(run: object, runs: int = RUNS) -> float:
    assert callable(run)
    fastest = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        run()
        fastest = min(fastest, time.perf_counter() - started)
    return fastest


def main() -> int:
    from gradgate.bot.config.model import load_config
    from gradgate.bot.config.starter import starter_config
    from gradgate.bot.git.repository import GitRepository

    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        repo_path = Path(tmp) / "repo"
        build_repo(repo_path)
        with GitRepository(repo_path) as repo:
            head = repo.resolve("main")

            baseline_read: set[str] = set()
            init_read: set[str] = set()

            def read_all() -> None:
                for path in repo.list_files(head):
                    repo.read(head, path)
                    baseline_read.add(path)

            def init() -> str:
                def read(path: str) -> bytes | None:
                    found = repo.read(head, path)
                    if found is not None:  # it also asks for files a repository may lack
                        init_read.add(path)
                    return found

                return starter_config(repo.list_files(head), read)

            baseline_s = best(read_all)
            init_s = best(init)
            config = load_config(init())
    # The same work: every file the command read, the baseline read too.
    assert init_read and init_read <= baseline_read, len(init_read)
    zones = {z.name: z.paths for z in config.zones}
    print(f"{PYTHON_FILES:,} Python files; proposed zones: {zones}")
    print(f"reading every tracked file from git: {baseline_s:.3f} s (best of {RUNS})")
    print(f"gradgate init --print, in process: {init_s:.3f} s (best of {RUNS})")
    print(figure("init_timm_sized_s", f"{init_s:.2f}", f"<= {TARGET_S:.1f}", init_s <= TARGET_S))
    print(f"init / reading the files: {init_s / baseline_s:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
