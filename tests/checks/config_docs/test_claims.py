"""claims: what a Markdown page claims, and the look-alikes that claim nothing."""

from __future__ import annotations

from gradgate.checks.config_docs.claims.markdown import read_doc
from gradgate.checks.config_docs.model import ImportClaim, PathClaim, ValueClaim


def values(text: str) -> list[tuple[int, str, str, str]]:
    claims, _ = read_doc("README.md", text)
    return [
        (c.line, ".".join(c.key), c.value.text, c.form) for c in claims if isinstance(c, ValueClaim)
    ]


def test_option_table_with_a_default_column() -> None:
    text = (
        "| Option | Default | Meaning |\n|---|---|---|\n"
        "| `--batch-size` | `32` (per GPU) | images |\n"
        "| **lr** | 3e-4 | rate |\n"
        "| `optimizer.name` | adamw | which |\n"
        "| `warmup` | depends on the GPU | prose, no value |\n"
        "| `seed` | — | no value |\n"
    )
    assert values(text) == [
        (3, "batch_size", "32", "table"),
        (4, "lr", "3e-4", "table"),
        (5, "optimizer.name", "adamw", "table"),
    ]


def test_tables_without_a_default_or_value_column_claim_nothing() -> None:
    text = "| model | top-1 | batch_size |\n|---|---|---|\n| resnet | 76.1 | 256 |\n"
    assert values(text) == []


def test_inline_code_pairs_and_default_phrases() -> None:
    text = (
        "Training uses `batch_size: 32` and `lr=3e-4`.\n"
        "Also **`dropout: 0.1`** and [`warmup: 100`](#warmup).\n\n"
        "- `--epochs` (default: `20`): how long\n"
        "- `n_layer` defaults to 12.\n"
        "- `lr`: the learning rate\n"
        "- `mode: fast or slow`, whichever fits\n"
    )
    assert values(text) == [
        (1, "batch_size", "32", "inline code"),
        (1, "lr", "3e-4", "inline code"),
        (2, "dropout", "0.1", "inline code"),
        (2, "warmup", "100", "inline code"),
        (4, "epochs", "20", "option list"),
        (5, "n_layer", "12", "option list"),
    ]


def test_overrides_other_setups_versions_and_dates_are_not_claims() -> None:
    text = (
        "Run `python train.py --batch_size=12` on a laptop.\n\n"
        "For ImageNet we used `batch_size: 256`.\n\n"
        "If you have less memory, try `batch_size=8`.\n\n"
        "Needs `torch>=1.10` and `torch==2.1`; `version: 1.10`; `python_version: 3.11`.\n\n"
        "Released `date: 2024-05-01`, tagged `release: v1.2.0`.\n"
    )
    assert values(text) == []


def test_fenced_data_blocks_give_rooted_claims_with_their_lines() -> None:
    text = (
        "# c\n\n```yaml\noptimizer:\n  lr: 3e-4\n```\n\n"
        '```json\n{"batch_size": 32}\n```\n\n```toml\n[train]\nepochs = 20\n```\n'
    )
    claims, problems = read_doc("README.md", text)
    assert problems == []
    found = [
        (c.line, c.key, c.value.text, c.form, c.rooted) for c in claims if isinstance(c, ValueClaim)
    ]
    assert found == [
        (5, ("optimizer", "lr"), "3e-4", "yaml block", True),
        (9, ("batch_size",), "32", "json block", True),
        (14, ("train", "epochs"), "20", "toml block", True),
    ]


def test_python_blocks_give_imports_even_in_sessions_and_excerpts() -> None:
    text = (
        "```python\nfrom pkg.model import GPT, GPTConfig\nimport pkg.train as t\n```\n\n"
        "```pycon\n>>> from pkg.data import Loader\n>>> Loader()\n<Loader>\n```\n\n"
        "```python\nfrom pkg.util import helper\n...\nthis is not python\n```\n"
    )
    claims, _ = read_doc("README.md", text)
    found = [(c.line, c.module, c.name) for c in claims if isinstance(c, ImportClaim)]
    assert found == [
        (2, "pkg.model", "GPT"),
        (2, "pkg.model", "GPTConfig"),
        (3, "pkg.train", None),
        (7, "pkg.data", "Loader"),
        (13, "pkg.util", "helper"),
    ]


def test_shell_blocks_name_scripts_modules_and_config_files() -> None:
    text = (
        "```console\n$ CUDA_VISIBLE_DEVICES=0 python train.py \\\n    --config=configs/a.yaml\n"
        "Epoch 1: loss 0.3\nbash printed-by-the-script.sh\n"
        "$ cd tools && ./prep.sh data.json\n$ python -m pkg.eval --out out.json\n"
        "$ torchrun --nproc_per_node 8 train.py /abs/path.yaml ~/x.yaml\n```\n"
    )
    claims, _ = read_doc("README.md", text)
    found = [(c.line, c.target, c.kind) for c in claims if isinstance(c, PathClaim)]
    assert found == [
        (2, "train.py", "script"),
        (2, "configs/a.yaml", "file"),
        (6, "tools/prep.sh", "script"),
        (6, "tools/data.json", "file"),
        (7, "pkg.eval", "module"),
        (8, "tools/train.py", "script"),
    ]


def test_an_unparsable_data_block_is_a_problem_not_a_crash() -> None:
    claims, problems = read_doc("README.md", "```yaml\na: [1\n```\n")
    assert claims == []
    assert [(p.kind, p.line) for p in problems] == [("block-unparsed", 3)]
