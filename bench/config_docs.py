"""Benchmark: the `config-docs` check on a tree of 2,000 Markdown files and 500 configs.

Builds a synthetic repository in a temp dir (one `git fast-import` stream): docs/ holds 2,000
Markdown pages of ~4 KB (headings, prose with `key: value` code spans, option tables, fenced
yaml/bash/python blocks), configs/ 500 YAML/JSON/TOML files, and a few Python modules with
dataclass and argparse defaults. The PR edits 40 pages and 20 configs. The figure is the whole
check in process (list both revisions, read from git, parse, compare, word the findings); the
baseline parses the same 2,000 pages, already in memory, with markdown-it-py alone (CommonMark
and tables). The check's own parser leaves out the emphasis and link rules no claim needs, so
the script also prints the check against that parse: its overhead beyond parsing.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from io import StringIO
from pathlib import Path

from bench.plan import figure

PAGES, CONFIGS = 2_000, 500
EDITED_PAGES, EDITED_CONFIGS = 40, 20
TARGET_RATIO = 2.0
RUNS = 3
MODEL = "from dataclasses import dataclass\n\n\n@dataclass\nclass GPT:\n    n_layer: int = 12\n"
TRAIN = "import argparse\n\nargparse.ArgumentParser().add_argument('--lr', default=3e-4)\n"
DEFAULTS = {"batch_size": 32, "lr": "3e-4", "dropout": 0.1, "warmup_steps": 1000,
            "weight_decay": 0.01, "epochs": 20, "n_layer": 12}  # fmt: skip
KEYS = tuple(DEFAULTS)
DRIFT = 0.02  # the share of doc values that disagree with every config, as in a real repo


def _claimed(key: str, rng: random.Random) -> object:
    return rng.randint(100, 999) if rng.random() < DRIFT else DEFAULTS[key]


def _page(index: int, rng: random.Random) -> str:
    out = StringIO()
    out.write(f"# Page {index}\n\nThis page explains experiment {index}.\n\n")
    for section in range(3):
        key = rng.choice(KEYS)
        out.write(f"## Section {section}\n\nThe recipe trains with `{key}: {_claimed(key, rng)}`")
        out.write(" and logs every step. " * 6 + "\n\n")
        out.write("| option | default | meaning |\n|---|---|---|\n")
        for key in rng.sample(KEYS, 4):
            out.write(f"| `{key}` | {_claimed(key, rng)} | what `{key}` controls |\n")
        key = rng.choice(KEYS)
        out.write(f"\n```yaml\n{key}: {_claimed(key, rng)}\noptimizer:\n  lr: 3e-4\n```\n\n")
        out.write(
            f"```bash\npython train.py configs/exp{index % CONFIGS:03d}.yaml --seed=1\n```\n\n"
        )
        out.write("```python\nfrom pkg.model import GPT\nimport torch\n```\n\n")
        out.write("Some *emphasis*, a [link](https://example.com) and **bold** words. " * 8)
        out.write("\n\n- a list item\n- another with `code`\n\n")
    return out.getvalue()


def _config(index: int, rng: random.Random, *, bump: int = 0) -> tuple[str, str]:
    # Each experiment varies two settings from the defaults; the PR's edits vary one more.
    values = dict(DEFAULTS)
    for key in rng.sample(KEYS, 2 + bump):
        values[key] = rng.randint(1, 64)
    kind = index % 10
    if kind == 8:
        body = ",\n".join(f'  "{k}": {v}' for k, v in values.items())
        return f"configs/exp{index:03d}.json", "{\n" + body + "\n}\n"
    if kind == 9:
        return f"configs/exp{index:03d}.toml", "".join(f"{k} = {v}\n" for k, v in values.items())
    body = "".join(f"{k}: {v}\n" for k, v in values.items())
    return f"configs/exp{index:03d}.yaml", body + "optimizer:\n  lr: 3e-4\n  betas: [0.9, 0.95]\n"


def build_repo(repo: Path) -> None:
    rng = random.Random(0)
    base: dict[str, str] = {
        "README.md": _page(0, rng),
        "pkg/__init__.py": "",
        "pkg/model.py": MODEL,
        "train.py": TRAIN,
    }
    base.update({f"docs/part{i % 20:02d}/page{i:04d}.md": _page(i, rng) for i in range(PAGES)})
    base.update(dict(_config(i, rng) for i in range(CONFIGS)))
    head = dict(base)
    for i in range(EDITED_PAGES):
        head[f"docs/part{i % 20:02d}/page{i:04d}.md"] = _page(i + PAGES, rng)
    for i in range(EDITED_CONFIGS):
        path, text = _config(i, rng, bump=1)
        head[path] = text
    stream = StringIO()
    for ref, files, parent in (("main", base, ""), ("pr", head, "from refs/heads/main\n")):
        stream.write(f"commit refs/heads/{ref}\ncommitter B <b@e> 0 +0000\ndata 4\n{ref:4}\n")
        stream.write(parent)
        for path, text in files.items():
            data = text.encode()
            stream.write(f"M 100644 inline {path}\ndata {len(data)}\n{text}\n")
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream.getvalue().encode(),
                   check=True)  # fmt: skip


def best(run: Callable[[], object], runs: int = RUNS) -> float:
    fastest = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        run()
        fastest = min(fastest, time.perf_counter() - started)
    return fastest


def main() -> int:
    from gradgate.bot.git.repository import GitRepository
    from gradgate.checks.base import CheckResult
    from gradgate.checks.config_docs.check import ConfigDocsCheck
    from gradgate.checks.config_docs.claims.markdown import parser as lean_parser
    from gradgate.checks.config_docs.settings import ConfigDocsSettings
    from gradgate.checks.context import CheckContext
    from markdown_it import MarkdownIt

    with tempfile.TemporaryDirectory(prefix="gradgate-bench-") as tmp:
        repo_path = Path(tmp) / "repo"
        started = time.perf_counter()
        build_repo(repo_path)
        print(
            f"built {PAGES:,} pages and {CONFIGS} configs in {time.perf_counter() - started:.1f} s"
        )
        with GitRepository(repo_path) as repo:
            base_sha, head_sha = repo.diff_range("main", "pr")
            pages = [
                (repo.read(head_sha, p) or b"").decode()
                for p in repo.list_files(head_sha)
                if p.endswith(".md")
            ]
            changes = repo.changes(base_sha, head_sha)
            # The same work: the baseline parses every page the check reads at each revision.
            assert len(pages) == PAGES, len(pages)
            assert len(changes) == EDITED_PAGES + EDITED_CONFIGS, len(changes)
            parser = MarkdownIt("commonmark").enable("table")
            baseline_s = best(lambda: [parser.parse(text) for text in pages])
            # The check parses with the inline rules it needs only (claims.markdown): shown
            # beside the figure so the check's own overhead over its parse is visible too.
            lean_s = best(lambda: [lean_parser().parse(text) for text in pages])
            ctx = CheckContext(
                base_sha=base_sha,
                head_sha=head_sha,
                changes=changes,
                source=repo,
                settings=ConfigDocsSettings(),
            )
            results: list[CheckResult] = []
            check_s = best(lambda: results.append(ConfigDocsCheck().run(ctx)))
    result = results[-1]
    kinds: dict[str, int] = {}
    for f in result.findings:
        kinds[f"{f.kind} ({f.severity})"] = kinds.get(f"{f.kind} ({f.severity})", 0) + 1
    print(f"markdown-it-py parse of {len(pages):,} pages: {baseline_s:.3f} s (best of {RUNS})")
    print(f"the same with the check's parser (no emphasis/link rules): {lean_s:.3f} s")
    print(f"config-docs check, both revisions: {check_s:.3f} s (best of {RUNS}); {result.summary}")
    print(f"  metrics: {dict(result.metrics)}; findings: {kinds}")
    print(f"check / its own parse: {check_s / lean_s:.2f}x")
    ratio = check_s / baseline_s
    ok = ratio <= TARGET_RATIO
    print(figure("config_docs_vs_markdown_parse", f"{ratio:.2f}", f"<= {TARGET_RATIO:.1f}", ok))
    return 0


if __name__ == "__main__":
    sys.exit(main())
